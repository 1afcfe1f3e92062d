{# Deterministic event id: sha-256 of the identifying parts,
   so a re-delivered message gets the same id. #}
{% macro event_id(parts) -%}
    {%- set texts = [] -%}
    {%- for part in parts -%}
        {%- do texts.append("coalesce(cast(" ~ part ~ " as string), '')") -%}
    {%- endfor -%}
    sha2(concat_ws('|', {{ texts | join(', ') }}), 256)
{%- endmacro %}
