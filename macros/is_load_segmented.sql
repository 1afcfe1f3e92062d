{# True when the running model's table is partitioned by `load_segment` (an appended table:
   dbt_project.yml), whose runs append to its open segment (see _macros.yml). #}
{% macro is_load_segmented() -%}
    {%- set partition_by = config.get('partition_by') or [] -%}
    {%- set partition_by = [partition_by] if partition_by is string else partition_by -%}
    {{ return('load_segment' in partition_by) }}
{%- endmacro %}
