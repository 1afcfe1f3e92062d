{# The staged events the change log holds: the first delivery of each row change. #}
{% macro is_logged_change() -%}
    event_kind = 'change' and is_first_delivery
{%- endmacro %}
