{% macro held_loads_properties(relation) -%}
    {%- set held = run_query(
        "select unix_micros(coalesce(max(loaded_at), timestamp'0001-01-01 00:00:00')) from "
        ~ relation
    ).columns[0].values()[0] | int -%}
    {{ return({
        'cdc_lake.loads_read_after': held,
        'cdc_lake.loads_read_through': held,
        'cdc_lake.loads_read': '',
    }) }}
{%- endmacro %}
