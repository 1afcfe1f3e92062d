package com.alibaba.fastsql.sql.ast;

import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's data type: a name, arguments such as (10, 2), and flags. */
public class SQLDataTypeImpl extends SQLObjectImpl {
    public String name;
    public List<SQLExprImpl> arguments = new ArrayList<>();
    public boolean unsigned;
}
