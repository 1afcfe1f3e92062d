{% macro invalid_json_reason() -%}
    'not valid JSON, or nested over 1000 levels deep'
{%- endmacro %}
