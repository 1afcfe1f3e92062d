package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLDataTypeImpl;
import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLObjectImpl;

/** Test stand-in for FastSQL's column definition. */
public class SQLColumnDefinition extends SQLObjectImpl {
    public SQLExprImpl name;
    public SQLDataTypeImpl dataType;
}
