{% macro cdc_lake_limits() -%}
    {{ return({
        'message_characters': 16777216,
        'name_characters': 256,
        'row_columns': 4096,
        'source_name_characters': 64,
    }) }}
{%- endmacro %}
