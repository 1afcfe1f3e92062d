{# The value of table property `name` of `relation` as dbt's relation cache describes the
   table (Spark's `show table extended`, read once per run): no statement. None when the
   table or the property is absent. #}
{% macro table_property(relation, name) -%}
    {%- set cached = load_relation(relation) -%}
    {%- set listed = modules.re.search(
        '\nTable Properties: \\[(.*)\\]\n', (cached.information or '') if cached else ''
    ) -%}
    {%- for property in (listed.group(1).split(', ') if listed else []) -%}
        {%- if property.startswith(name ~ '=') -%}
            {{ return(property[name | length + 1:]) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
{%- endmacro %}
