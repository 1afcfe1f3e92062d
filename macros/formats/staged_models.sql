{% macro staged_models() -%}
    {%- set models = [] -%}
    {%- for entry in enabled_cdc_formats() -%}
        {%- do models.append(ref(entry.model)) -%}
    {%- endfor -%}
    {{ return(models) }}
{%- endmacro %}
