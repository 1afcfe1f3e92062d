{# True when the deployment reads this format id: var `cdc_lake_formats` is `all` (the
   default) or a list that names it. Staging models pass it to `config(enabled=...)`. The SQL
   linter's stand-in for `var()` is a string too: it lints every format. #}
{% macro is_format_enabled(source_format) -%}
    {%- set formats = var('cdc_lake_formats') -%}
    {{ return(formats is string or source_format in formats) }}
{%- endmacro %}
