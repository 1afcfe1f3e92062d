{# How many runs may append to an appended table before it is rewritten (macro
   compact_appended_table), given the rows it held when last rewritten (0: not yet): var
   `cdc_lake_compaction_appends` up to two million rows, growing with the square root of the
   rows beyond (see _macros.yml). #}
{% macro appends_between_compactions(rows) -%}
    {%- set scale = [1, rows / 2000000] | max -%}
    {{ return((var('cdc_lake_compaction_appends') * scale ** 0.5) | round(0, 'ceil') | int) }}
{%- endmacro %}
