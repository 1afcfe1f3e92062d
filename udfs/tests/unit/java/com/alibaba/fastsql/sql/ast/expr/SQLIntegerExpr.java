package com.alibaba.fastsql.sql.ast.expr;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;

/** Test stand-in for FastSQL's integer literal (a boxed Integer in the stream). */
public class SQLIntegerExpr extends SQLExprImpl {
    public Number number;
}
