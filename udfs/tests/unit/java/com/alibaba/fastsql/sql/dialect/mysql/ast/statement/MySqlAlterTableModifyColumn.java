package com.alibaba.fastsql.sql.dialect.mysql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import com.alibaba.fastsql.sql.ast.statement.SQLColumnDefinition;

/** Test stand-in for FastSQL's MySQL MODIFY COLUMN item. */
public class MySqlAlterTableModifyColumn extends SQLObjectImpl {
    public SQLColumnDefinition newColumnDefinition;
}
