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
