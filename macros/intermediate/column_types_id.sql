{# The id of a change's column types within its table (see _macros.yml): a 64-bit hash of
   the map's entries in the order sent, NULL for NULL. The history stores this id, not the
   map; the table sightings keep each map once, and cdc_row_history looks it up by
   (table_key, id): a map per version was a quarter of what writing the history base cost. #}
{% macro column_types_id(column_types) -%}
    case when {{ column_types }} is not null then xxhash64(map_entries({{ column_types }})) end
{%- endmacro %}
