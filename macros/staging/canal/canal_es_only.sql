{% macro canal_es_only(value, numbers_as_sent=false) -%}
    from_json({{ json_numbers_as_sent(value) if numbers_as_sent else value }}, 'es string')
{%- endmacro %}
