{% macro is_debezium_unavailable_value(value) -%}
    {%- set placeholder = '__debezium_unavailable_value' -%}
    coalesce({{ value }} in (
        '{{ placeholder }}',
        base64(encode('{{ placeholder }}', 'UTF-8')),
        '["{{ placeholder }}"]'
    ), false)
{%- endmacro %}
