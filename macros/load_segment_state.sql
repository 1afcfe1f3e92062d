{# Where an appended table (partitioned by `load_segment`) stands, from its table properties
   as dbt's relation cache holds them at the start of the run (macro table_property: no
   statement): `open`, the segment this run appends to; `appends`, the appends to it since it
   was last rewritten; `closed_through`, the newest `loaded_at` (microseconds) of every other
   segment, or none when the table does not say (see _macros.yml). #}
{% macro load_segment_state(relation) -%}
    {%- set open = table_property(relation, 'cdc_lake.open_segment') -%}
    {%- set appends = table_property(relation, 'cdc_lake.segment_appends') -%}
    {%- set closed_through = table_property(relation, 'cdc_lake.closed_through') -%}
    {{ return({
        'open': (open or 1) | int,
        'appends': (appends or 0) | int,
        'closed_through': none if closed_through is none else closed_through | int,
    }) }}
{%- endmacro %}
