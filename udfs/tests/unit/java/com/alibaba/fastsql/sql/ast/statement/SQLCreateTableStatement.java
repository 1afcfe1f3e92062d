package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's CREATE TABLE: columns and constraints are table elements. */
public class SQLCreateTableStatement extends SQLStatementImpl {
    public SQLExprTableSource tableSource;
    public List<SQLObjectImpl> tableElementList = new ArrayList<>();
}
