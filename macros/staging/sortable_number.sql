{# Non-negative integer text that sorts numerically as a string:
   its length (2 digits), then the digits. #}
{% macro sortable_number(expression) -%}
    coalesce(
        lpad(cast(length(cast({{ expression }} as string)) as string), 2, '0')
        || cast({{ expression }} as string),
        '00'
    )
{%- endmacro %}
