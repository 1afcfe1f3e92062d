{# SQL: why one row-change of a staged message breaks a limit every format shares, else NULL:
   a row image (or the column types) naming more columns than `cdc_lake_limits` allows, or a
   column name over its name limit. Column names become typed models' identifiers and
   cdc_table_schemas rows, so they are bounded here, per row: a message's other rows may be
   fine. The name check reads the keys only when their total length could hide a long one. #}
{% macro staged_row_violation(absent=[]) -%}
    {%- set limits = cdc_lake_limits() -%}
    {%- set maps = ['before_row', 'after_row', 'column_types'] | reject('in', absent) | list -%}
    case
        when greatest(
    {%- for map in maps %}
            coalesce(size({{ map }}), 0),
    {%- endfor %}
            0
        ) > {{ limits.row_columns }}
            then 'a row image of more than {{ limits.row_columns }} columns is over the limit'
    {%- for map in maps %}
        when
            length(array_join(map_keys({{ map }}), '')) > {{ limits.name_characters }}
            and exists(map_keys({{ map }}), name -> length(name) > {{ limits.name_characters }})
            then 'a column name is over the limit of {{ limits.name_characters }} characters'
    {%- endfor %}
    end
{%- endmacro %}
