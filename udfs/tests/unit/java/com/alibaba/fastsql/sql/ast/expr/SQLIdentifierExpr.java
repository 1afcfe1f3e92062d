package com.alibaba.fastsql.sql.ast.expr;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;

/** Test stand-in for FastSQL's identifier; the name keeps any quotes the SQL had. */
public class SQLIdentifierExpr extends SQLExprImpl {
    public String name;
}
