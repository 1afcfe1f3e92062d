{% macro newest_generation(relation) -%}
    {%- set generations = partition_generations(relation) if execute else [] -%}
    {{ return(generations | max if generations else 0) }}
{%- endmacro %}
