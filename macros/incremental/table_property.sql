{% macro table_property(relation, name) -%}
    {%- set cached = load_relation(relation) -%}
    {{ return(table_properties_in((cached.information or '') if cached else '').get(name)) }}
{%- endmacro %}
