{% macro is_logged_statement() -%}
    (event_kind = 'schema_change' or (event_kind = 'change' and op = 'truncate'))
    and is_first_delivery
{%- endmacro %}
