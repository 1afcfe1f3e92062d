{# `query` headed by a comment naming its build signature, which the table materialization
   (materialization_table_spark) compares with the one the table was built with: the value
   of each of `inputs` (scalar queries whose value moves whenever what the model reads
   moves: a newest generation, a newest load time) and an md5 of `query`, so that a changed
   model, var or column list rebuilds the table too. One query. `query` as it is while dbt
   parses and in the SQL linter. #}
{% macro with_build_signature(query, inputs) -%}
    {%- if not execute -%}
        {{ return(query) }}
    {%- endif -%}
    {%- set values = [] -%}
    {%- for input in inputs -%}
        {%- do values.append("coalesce(cast((" ~ input ~ ") as string), '')") -%}
    {%- endfor -%}
    {%- set newest = run_query('select ' ~ values | join(', ')).rows[0] | list -%}
    {%- set signature = (newest + [local_md5(query | trim)]) | join('/') -%}
    {{ return('/* cdc_lake.built_from: ' ~ signature ~ ' */\n' ~ query) }}
{%- endmacro %}
