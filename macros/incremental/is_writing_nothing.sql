{# True when the running model's SQL ends in macro writes_nothing of `relation` (see
   _macros.yml). #}
{% macro is_writing_nothing(relation) -%}
    {%- set query = (model.compiled_code or '') | trim -%}
    {{ return(execute and query.endswith(writes_nothing(relation) | trim)) }}
{%- endmacro %}
