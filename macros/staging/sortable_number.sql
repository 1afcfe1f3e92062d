{% macro sortable_number(expression) -%}
    coalesce(
        lpad(cast(length(cast({{ expression }} as string)) as string), 2, '0')
        || cast({{ expression }} as string),
        '00'
    )
{%- endmacro %}
