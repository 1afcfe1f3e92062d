{# Stores `properties` (name to value, no quote in either) on `relation`: one `alter table`
   (see _macros.yml). #}
{% macro set_table_properties(relation, properties) -%}
    {%- set pairs = [] -%}
    {%- for name, value in properties.items() -%}
        {%- do pairs.append("'" ~ name ~ "' = '" ~ value ~ "'") -%}
    {%- endfor -%}
    {%- do run_query(
        'alter table ' ~ relation ~ ' set tblproperties (' ~ pairs | join(', ') ~ ')'
    ) -%}
{%- endmacro %}
