{# One sortable string from ordering fields, most significant first (see _macros.yml). #}
{% macro ordering_key(parts) -%}
    concat_ws(
        '.'
        {%- for part in parts %},
        {{ sortable_number(part) }}
        {%- endfor %}
    )
{%- endmacro %}
