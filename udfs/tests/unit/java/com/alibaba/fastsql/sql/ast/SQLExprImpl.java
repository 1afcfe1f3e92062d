package com.alibaba.fastsql.sql.ast;

/** Test stand-in for FastSQL's expression base. */
public abstract class SQLExprImpl extends SQLObjectImpl {}
