{# An HBase-table value of Lindorm (base64 of the raw bytes, as staging keeps it) as text:
   NULL when the value is not base64. For analysts' queries and typed models. #}
{% macro lindorm_text(column, charset='UTF-8') -%}
    decode(try_to_binary({{ column }}, 'base64'), '{{ charset }}')
{%- endmacro %}
