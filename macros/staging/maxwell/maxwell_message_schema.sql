{% macro maxwell_message_schema() -%}
    struct<
        database: string,
        table: string,
        type: string,
        ts: string,
        ts_ms: string,
        xid: string,
        xoffset: string,
        commit: string,
        position: string,
        gtid: string,
        server_id: string,
        thread_id: string,
        data: map<string, variant>,
        old: map<string, variant>,
        primary_key: array<string>,
        primary_key_columns: array<string>,
        sql: string,
        def: string,
        _corrupt_record: string
    >
{%- endmacro %}
