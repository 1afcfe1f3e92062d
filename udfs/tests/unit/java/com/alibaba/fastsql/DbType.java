package com.alibaba.fastsql;

/** Test stand-in for FastSQL's DbType: constants are lower-case, as in the real enum. */
public enum DbType {
    mysql,
    postgresql,
    oracle
}
