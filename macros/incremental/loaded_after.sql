{% macro loaded_after(relation, after, column='loaded_at', max_loads=1000) -%}
    {%- if not execute -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set probe_sql -%}
        select distinct unix_micros({{ column }}) as load_micros from {{ relation }}
        where {{ column }} > {{ after }}
        order by load_micros
        limit {{ max_loads + 1 }}
    {%- endset -%}
    {%- set loads = run_query(probe_sql).columns[0].values() | map('int') | list -%}
    {{ return(load_times_condition(loads, column, max_loads)) }}
{%- endmacro %}
