{# The record of loads (macro recorded_loads) of appended table `relation` that has none (it
   never appended, or a run stopped between its insert and its record), from what it holds:
   its newest load (0001-01-01 when it holds none) as `through` and as where the list, empty,
   starts. One query, on the first run that finds it without a record and nothing new. #}
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
