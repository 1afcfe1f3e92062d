package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's TRUNCATE TABLE. */
public class SQLTruncateStatement extends SQLStatementImpl {
    public List<SQLExprTableSource> tableSources = new ArrayList<>();
}
