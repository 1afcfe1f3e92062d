package com.alibaba.fastsql.sql.dialect.mysql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import com.alibaba.fastsql.sql.ast.statement.SQLColumnDefinition;

/** Test stand-in for FastSQL's MySQL CHANGE COLUMN old new type item. */
public class MySqlAlterTableChangeColumn extends SQLObjectImpl {
    public SQLExprImpl columnName;
    public SQLColumnDefinition newColumnDefinition;
}
