{# The distinct `generation` partition values of a table partitioned by it (first), as
   numbers: a metastore call, no scan. #}
{% macro partition_generations(relation) -%}
    {%- set generations = [] -%}
    {%- for row in run_query('show partitions ' ~ relation).rows -%}
        {%- set generation = row[0].split('/')[0].split('=')[1] | int -%}
        {%- if generation not in generations -%}
            {%- do generations.append(generation) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(generations) }}
{%- endmacro %}
