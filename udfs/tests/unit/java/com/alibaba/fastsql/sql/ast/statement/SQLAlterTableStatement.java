package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's ALTER TABLE: the table and its alter items. */
public class SQLAlterTableStatement extends SQLStatementImpl {
    public SQLExprTableSource tableSource;
    public List<SQLObjectImpl> items = new ArrayList<>();
}
