package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLObjectImpl;

/** Test stand-in for FastSQL's table reference: the table's name expression. */
public class SQLExprTableSource extends SQLObjectImpl {
    public SQLExprImpl expr;
}
