package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLDataTypeImpl;

/** Test stand-in for FastSQL's character type (varchar, text, ...). */
public class SQLCharacterDataType extends SQLDataTypeImpl {
    public String charSetName;
}
