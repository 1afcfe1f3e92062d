package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's DROP TABLE. */
public class SQLDropTableStatement extends SQLStatementImpl {
    public List<SQLExprTableSource> tableSources = new ArrayList<>();
}
