{# from_json schema of a Canal flat message (open-source Canal and Alibaba DTS Canal JSON).
   Row values are variant (Canal writes text, but nothing is lost if a writer sends numbers);
   es, ts, id and isDdl are text so that a writer quoting them does not spoil the message. #}
{% macro canal_message_schema() -%}
    struct<
        data: array<map<string, variant>>,
        old: array<map<string, variant>>,
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
