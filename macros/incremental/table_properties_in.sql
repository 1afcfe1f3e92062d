{# The table properties that the `information` of Spark's `show table extended` lists (its
   `Table Properties` line), by name: empty when it lists none. #}
{% macro table_properties_in(information) -%}
    {%- set listed = modules.re.search('\nTable Properties: \\[(.*)\\]\n', information) -%}
    {%- set properties = {} -%}
    {%- for property in (listed.group(1).split(', ') if listed else []) -%}
        {%- set name, value = property.split('=', 1) -%}
        {%- do properties.update({name: value}) -%}
    {%- endfor -%}
    {{ return(properties) }}
{%- endmacro %}
