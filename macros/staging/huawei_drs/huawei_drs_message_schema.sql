{% macro huawei_drs_message_schema() -%}
    struct<
        id: string,
        type: string,
        opType: string,
        dbType: string,
        database: string,
        schema: string,
        table: string,
        es: string,
        ts: string,
        sql: string,
        pkNames: array<string>,
        mysqlType: map<string, string>,
        columnType: map<string, string>,
        sqlType: map<string, string>,
        data: array<map<string, variant>>,
        old: array<map<string, variant>>,
        _corrupt_record: string
    >
{%- endmacro %}
