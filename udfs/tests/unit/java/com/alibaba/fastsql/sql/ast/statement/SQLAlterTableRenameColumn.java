package com.alibaba.fastsql.sql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLObjectImpl;

/** Test stand-in for FastSQL's RENAME COLUMN a TO b item. */
public class SQLAlterTableRenameColumn extends SQLObjectImpl {
    public SQLExprImpl column;
    public SQLExprImpl to;
}
