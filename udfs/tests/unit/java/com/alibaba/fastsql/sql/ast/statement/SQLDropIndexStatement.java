package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLStatementImpl;

/** Test stand-in for FastSQL's DROP INDEX: the index name and its table. */
public class SQLDropIndexStatement extends SQLStatementImpl {
    public SQLExprImpl indexName;
    public SQLExprTableSource tableName;
}
