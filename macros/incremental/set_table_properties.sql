{% macro set_table_properties(relation, properties) -%}
    {%- set pairs = [] -%}
    {%- for name, value in properties.items() -%}
        {%- do pairs.append("'" ~ name ~ "' = '" ~ value ~ "'") -%}
    {%- endfor -%}
    {%- do run_query(
        'alter table ' ~ relation ~ ' set tblproperties (' ~ pairs | join(', ') ~ ')'
    ) -%}
{%- endmacro %}
