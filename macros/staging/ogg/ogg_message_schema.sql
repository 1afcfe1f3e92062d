{% macro ogg_message_schema() -%}
    struct<
        table: string,
        op_type: string,
        op_ts: string,
        current_ts: string,
        pos: string,
        primary_keys: array<string>,
        tokens: map<string, string>,
        before: map<string, variant>,
        after: map<string, variant>,
        _corrupt_record: string
    >
{%- endmacro %}
