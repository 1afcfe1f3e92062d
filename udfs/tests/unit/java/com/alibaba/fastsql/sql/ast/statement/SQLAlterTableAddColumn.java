package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's ADD COLUMN item. */
public class SQLAlterTableAddColumn extends SQLObjectImpl {
    public List<SQLColumnDefinition> columns = new ArrayList<>();
}
