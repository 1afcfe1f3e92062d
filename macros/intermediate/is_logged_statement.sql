{# The staged events int_cdc__schema_changes holds: the first delivery of each DDL statement
   and each truncate (a truncate changes rows, and is a statement). #}
{% macro is_logged_statement() -%}
    (event_kind = 'schema_change' or (event_kind = 'change' and op = 'truncate'))
    and is_first_delivery
{%- endmacro %}
