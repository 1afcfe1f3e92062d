package com.alibaba.fastsql.sql.dialect.mysql.ast.statement;

import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLObjectImpl;
import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import java.util.ArrayList;
import java.util.List;

/** Test stand-in for FastSQL's MySQL RENAME TABLE a TO b: items of a nested class. */
public class MySqlRenameTableStatement extends SQLStatementImpl {
    public List<Item> items = new ArrayList<>();

    /** One a TO b pair (written as MySqlRenameTableStatement$Item). */
    public static class Item extends SQLObjectImpl {
        public SQLExprImpl name;
        public SQLExprImpl to;
    }
}
