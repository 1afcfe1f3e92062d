{# SQL string literal: the rejection reason for a message Spark's JSON parser cannot read,
   which is also what JSON nested deeper than its limit gets (the README's limits). #}
{% macro invalid_json_reason() -%}
    'not valid JSON, or nested over 1000 levels deep'
{%- endmacro %}
