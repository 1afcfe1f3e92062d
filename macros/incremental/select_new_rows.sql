{# The last statement of a model that reads only its run's new loads: `select * from
   final` and a comment naming the loads it reads (for the incremental materialization to
   record, macro loads_read_marked), or, when the run has none (`new_loads` is 'false'),
   macro writes_nothing, so no insert runs at all (see _macros.yml). #}
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
