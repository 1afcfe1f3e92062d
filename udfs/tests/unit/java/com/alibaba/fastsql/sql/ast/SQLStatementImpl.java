package com.alibaba.fastsql.sql.ast;

import com.alibaba.fastsql.DbType;

/** Test stand-in for FastSQL's statement base, which carries the dialect. */
public abstract class SQLStatementImpl extends SQLObjectImpl {
    public DbType dbType;
}
