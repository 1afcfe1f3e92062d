{# from_json schema of a DTS SharePlex JSON message. Row values are variant: numbers keep
   their digits; meta fields are strings (a JSON number is read as its text). #}
{% macro dts_shareplex_message_schema() -%}
    struct<
        meta: struct<
            time: string, userid: string, op: string, scn: string, rowid: string,
            trans: string, seq: string, size: string, table: string, idx: string,
            posttime: string
        >,
        data: map<string, variant>,
        key: map<string, variant>,
        _corrupt_record: string
    >
{%- endmacro %}
