{% macro ordering_key(parts) -%}
    {%- set sortable_parts = [] -%}
    {%- for part in parts -%}
        {%- do sortable_parts.append(sortable_number(part)) -%}
    {%- endfor -%}
    concat_ws('.', {{ sortable_parts | join(', ') }})
{%- endmacro %}
