{% macro loads_read_properties(named, recorded, kept=100) -%}
    {%- if not named -%}
        {{ return({'cdc_lake.loads_read_through': ''}) }}
    {%- endif -%}
    {#- A run whose own record was known read every load after it; else (a probe of the
        held rows) every load after the newest it held, so at least those from its first. -#}
    {%- if recorded.through is not none -%}
        {%- set after = recorded.after -%}
        {%- set loads = recorded.loads + named -%}
    {%- else -%}
        {%- set after = named[0] - 1 -%}
        {%- set loads = named -%}
    {%- endif -%}
    {%- if loads | length > kept -%}
        {%- set after = loads[-kept - 1] -%}
        {%- set loads = loads[-kept:] -%}
    {%- endif -%}
    {{ return({
        'cdc_lake.loads_read_after': after,
        'cdc_lake.loads_read_through': loads[-1],
        'cdc_lake.loads_read': loads | join(','),
    }) }}
{%- endmacro %}
