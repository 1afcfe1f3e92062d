package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLStatementImpl;

/** Test stand-in for FastSQL's CREATE INDEX: the index name and its table. */
public class SQLCreateIndexStatement extends SQLStatementImpl {
    public SQLExprImpl name;
    public SQLExprTableSource table;
}
