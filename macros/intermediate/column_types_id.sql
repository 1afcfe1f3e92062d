{% macro column_types_id(column_types) -%}
    case when {{ column_types }} is not null then xxhash64(map_entries({{ column_types }})) end
{%- endmacro %}
