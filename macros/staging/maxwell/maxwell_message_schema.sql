{# from_json schema of a Maxwell JSON message (rows, bootstrap rows and output_ddl messages).
   Row values are variant, as for Debezium: Maxwell writes numbers as JSON numbers, and a
   variant keeps their digits (a string field would read them through a double: 0.1 for
   0.10000000000000000555). A DDL message's `old` is a table definition, which reads as a map
   of its fields' JSON texts without spoiling the message. Ordering fields are text so that a
   writer quoting them does not spoil the message. #}
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
