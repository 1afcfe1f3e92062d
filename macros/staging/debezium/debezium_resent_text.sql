{% macro debezium_resent_text(value) -%}
    regexp_replace(
        {{ value }},
        ',"ts_ms":-?[0-9]+(,"ts_us":-?[0-9]+)?(,"ts_ns":-?[0-9]+)?(?=[}]{1,2}[ \\t\\r\\n]*$)',
        ''
    )
{%- endmacro %}
