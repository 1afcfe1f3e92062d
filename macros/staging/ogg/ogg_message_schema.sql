{# from_json schema of an Oracle GoldenGate JSON formatter message (operation modeled).
   Row values are variant, as for Maxwell and Debezium: numbers keep their digits (with
   json_numbers_as_sent), and the `<column>_isMissing` flags read as booleans. `pos` and the
   times are text, so a writer quoting or not quoting them does not spoil the message. #}
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
