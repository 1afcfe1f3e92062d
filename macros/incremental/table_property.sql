{# The value of table property `name` of `relation` as dbt's relation cache describes the
   table (Spark's `show table extended`, read once per run): no statement. None when the
   table or the property is absent. #}
{% macro table_property(relation, name) -%}
    {%- set cached = load_relation(relation) -%}
    {{ return(table_properties_in((cached.information or '') if cached else '').get(name)) }}
{%- endmacro %}
