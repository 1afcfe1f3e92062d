{% macro is_format_enabled(source_format) -%}
    {%- set formats = var('cdc_lake_formats') -%}
    {{ return(formats is string or source_format in formats) }}
{%- endmacro %}
