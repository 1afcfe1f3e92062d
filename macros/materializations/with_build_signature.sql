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
