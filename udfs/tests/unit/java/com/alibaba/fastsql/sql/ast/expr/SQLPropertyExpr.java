package com.alibaba.fastsql.sql.ast.expr;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;

/** Test stand-in for FastSQL's qualified name, owner.name. */
public class SQLPropertyExpr extends SQLExprImpl {
    public SQLExprImpl owner;
    public String name;
}
