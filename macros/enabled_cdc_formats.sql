{# The entries of `cdc_formats()` whose format id is in var `cdc_lake_formats`: the formats
   this deployment reads. The staging models (and landing sources) of the others are
   disabled, so a run spends nothing on them. #}
{% macro enabled_cdc_formats() -%}
    {%- set enabled = [] -%}
    {%- for entry in cdc_formats() -%}
        {%- if is_format_enabled(entry.format) -%}
            {%- do enabled.append(entry) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(enabled) }}
{%- endmacro %}
