package com.alibaba.fastsql.sql.ast;

import java.io.Serializable;

/** Test stand-in for FastSQL's AST base: every node points back to its parent (a cycle). */
public abstract class SQLObjectImpl implements Serializable {
    public SQLObjectImpl parent;

    /** Sets the child's parent and returns the child, so trees are built in one expression. */
    public <T extends SQLObjectImpl> T adopt(T child) {
        child.parent = this;
        return child;
    }
}
