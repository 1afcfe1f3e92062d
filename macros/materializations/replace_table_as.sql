{% macro replace_table_as(existing, relation, sql) -%}
    {%- if existing is not none -%}
        {% do adapter.drop_relation(existing) %}
    {%- endif -%}
    {%- call statement('main') -%}
        {{ create_table_as(false, relation, sql) }}
    {%- endcall -%}
{%- endmacro %}
