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
