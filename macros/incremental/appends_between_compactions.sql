{% macro appends_between_compactions(rows) -%}
    {%- set scale = [1, rows / 2000000] | max -%}
    {{ return((var('cdc_lake_compaction_appends') * scale ** 0.5) | round(0, 'ceil') | int) }}
{%- endmacro %}
