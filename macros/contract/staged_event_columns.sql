{# The names of the staging contract's columns, in order (macro staged_event_contract). #}
{% macro staged_event_columns() -%}
    {{ return(staged_event_contract() | map('first') | list) }}
{%- endmacro %}
