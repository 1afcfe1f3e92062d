{% macro select_new_rows(new_loads) -%}
    {%- if new_loads == 'false' -%}
        {{ writes_nothing(this) }}
    {%- else -%}
        {%- set loads = named_loads(new_loads) %}
select * from final
        {%- if loads is not none %}
/* cdc_lake.loads_read: {{ loads | join(',') }} */
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
