{% macro is_logged_change() -%}
    event_kind = 'change' and is_first_delivery
{%- endmacro %}
