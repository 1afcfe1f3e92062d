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
