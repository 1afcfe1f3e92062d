{# Deterministic event id: sha-256 of the identifying parts, so a re-delivered message gets the same id. #}
{% macro event_id(parts) -%}
    sha2(concat_ws('|'
        {%- for part in parts %}, coalesce(cast({{ part }} as string), '')
        {%- endfor %}), 256)
{%- endmacro %}
