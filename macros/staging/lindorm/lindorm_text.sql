{% macro lindorm_text(column, charset='UTF-8') -%}
    decode(try_to_binary({{ column }}, 'base64'), '{{ charset }}')
{%- endmacro %}
