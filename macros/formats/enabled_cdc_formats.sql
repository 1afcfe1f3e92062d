{% macro enabled_cdc_formats() -%}
    {%- set formats = var('cdc_lake_formats') -%}
    {%- set known = cdc_formats() | map(attribute='format') | list -%}
    {%- set unknown = [] if formats is string else formats | reject('in', known) | list -%}
    {%- set problem = '' -%}
    {%- if formats is string and formats != 'all' -%}
        {%- set problem = "is the string '" ~ formats ~ "', not a list" -%}
    {%- elif unknown -%}
        {%- set problem = "names unknown format ids: " ~ unknown | join(', ') -%}
    {%- endif -%}
    {%- if problem and execute -%}
        {{ exceptions.raise_compiler_error(
            "var cdc_lake_formats " ~ problem ~ "; it is `all` or a list of format ids: "
            ~ known | join(', ')
        ) }}
    {%- endif -%}
    {%- set enabled = [] -%}
    {%- for entry in cdc_formats() -%}
        {%- if is_format_enabled(entry.format) -%}
            {%- do enabled.append(entry) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(enabled) }}
{%- endmacro %}
