{# An always-true condition that makes Spark compute a CTE once however many parts of the
   query read it (see _macros.yml). #}
{% macro computed_once() -%}
    rand(0) >= 0
{%- endmacro %}
