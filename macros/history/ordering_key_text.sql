{% macro ordering_key_text(text) -%}
    {{ return(text if text is string and modules.re.fullmatch('[0-9.]*', text) else none) }}
{%- endmacro %}
