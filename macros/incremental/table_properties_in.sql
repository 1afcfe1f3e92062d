{% macro table_properties_in(information) -%}
    {%- set listed = modules.re.search('\nTable Properties: \\[(.*)\\]\n', information) -%}
    {%- set properties = {} -%}
    {%- for property in (listed.group(1).split(', ') if listed else []) -%}
        {%- set name, value = property.split('=', 1) -%}
        {%- do properties.update({name: value}) -%}
    {%- endfor -%}
    {{ return(properties) }}
{%- endmacro %}
