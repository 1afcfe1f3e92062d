package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLStatementImpl;

/** Test stand-in for a statement the summary does not know (CREATE VIEW). */
public class SQLCreateViewStatement extends SQLStatementImpl {
    public SQLExprTableSource tableSource;
}
