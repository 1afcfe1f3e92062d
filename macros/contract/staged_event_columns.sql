{% macro staged_event_columns() -%}
    {{ return(staged_event_contract() | map('first') | list) }}
{%- endmacro %}
