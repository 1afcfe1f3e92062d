package com.alibaba.di.plugin.center.meta;

import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import java.io.Serializable;

/** Test stand-in for DataWorks' DDLMeta: the DDL text and its FastSQL statement. */
public class DDLMeta implements Serializable {
    public String ddlText;
    public SQLStatementImpl statement;
}
