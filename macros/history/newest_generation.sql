{# The newest `generation` partition of a table partitioned by it (macro
   partition_generations: a metastore call, no scan); 0 when it has none or does not exist,
   and while dbt parses (`execute` false). #}
{% macro newest_generation(relation) -%}
    {%- set generations = partition_generations(relation) if execute else [] -%}
    {{ return(generations | max if generations else 0) }}
{%- endmacro %}
