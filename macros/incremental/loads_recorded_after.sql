{# The loads after `through` (microseconds since 1970) that the tables of `parents` recorded
   having read (macro recorded_loads), ascending, without repeats: none when `through` is
   none or there are no parents, or when one has no record or a list that does not reach
   back to `through` (it may then hold loads it does not list). One metastore call per
   schema (macro listed_table_properties). #}
{% macro loads_recorded_after(through, parents) -%}
    {%- set asked = parents if parents and through is not none else [] -%}
    {%- set listed = listed_table_properties(asked) if asked else {} -%}
    {%- set found = namespace(loads=[], complete=asked | length > 0) -%}
    {%- for parent in asked -%}
        {%- set theirs = recorded_loads(listed.get(parent.identifier, {})) -%}
        {%- if theirs.through is none or theirs.after > through -%}
            {%- set found.complete = false -%}
        {%- else -%}
            {%- set found.loads = found.loads + (theirs.loads | select('gt', through) | list) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(found.loads | unique | sort | list if found.complete else none) }}
{%- endmacro %}
