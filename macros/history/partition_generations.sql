{# The distinct `generation` partition values of a table partitioned by it (first), as
   numbers: a metastore call, no scan. None for a table that does not exist (yet). #}
{% macro partition_generations(relation) -%}
    {%- set generations = [] -%}
    {%- if load_relation(relation) is none -%}
        {{ return(generations) }}
    {%- endif -%}
    {%- for row in run_query('show partitions ' ~ relation).rows -%}
        {%- set generation = row[0].split('/')[0].split('=')[1] | int -%}
        {%- if generation not in generations -%}
            {%- do generations.append(generation) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(generations) }}
{%- endmacro %}
