{% macro is_writing_nothing(relation) -%}
    {%- set query = (model.compiled_code or '') | trim -%}
    {{ return(execute and query.endswith(writes_nothing(relation) | trim)) }}
{%- endmacro %}
