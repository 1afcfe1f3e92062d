{% macro computed_once() -%}
    rand(0) >= 0
{%- endmacro %}
