{# from_json schema of a Canal flat message (open-source Canal and Alibaba DTS Canal JSON).
   Row values are strings: Canal writes text, and from_json gives any other JSON value (a
   number, an object) as its JSON text, so nothing is lost if a writer sends one (parsing them
   as variant and casting back gave the same text, at a higher cost);
   es, ts, id and isDdl are text so that a writer quoting them does not spoil the message. #}
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
