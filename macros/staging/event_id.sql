{% macro event_id(parts) -%}
    {%- set texts = [] -%}
    {%- for part in parts -%}
        {%- do texts.append("coalesce(cast(" ~ part ~ " as string), '')") -%}
    {%- endfor -%}
    left(sha2(concat_ws('|', {{ texts | join(', ') }}, source_name), 256), 32)
{%- endmacro %}
