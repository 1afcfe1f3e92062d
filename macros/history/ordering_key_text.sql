{# `text` if it can be an `ordering_key` as macro ordering_key writes it (digits and dots;
   empty: none held), else none: the one check an ordering key read back from a probe or a
   table property passes before the history compares it as text or stores it. #}
{% macro ordering_key_text(text) -%}
    {{ return(text if text is string and modules.re.fullmatch('[0-9.]*', text) else none) }}
{%- endmacro %}
