{% macro canal_message_schema() -%}
    struct<
        data: array<map<string, string>>,
        old: array<map<string, string>>,
        database: string,
        table: string,
        pkNames: array<string>,
        isDdl: string,
        type: string,
        es: string,
        ts: string,
        id: string,
        sql: string,
        gtid: string,
        mysqlType: map<string, string>,
        _corrupt_record: string
    >
{%- endmacro %}
