package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's DROP COLUMN item. */
public class SQLAlterTableDropColumnItem extends SQLObjectImpl {
    public List<SQLExprImpl> columns = new ArrayList<>();
}
