package com.alibaba.fastsql.sql.dialect.mysql.ast.statement;

import com.alibaba.fastsql.sql.ast.statement.SQLCreateTableStatement;

/** Test stand-in for FastSQL's MySQL CREATE TABLE: a dialect subclass with its own field. */
public class MySqlCreateTableStatement extends SQLCreateTableStatement {
    public String engine;
}
