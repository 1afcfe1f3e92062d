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
    end
{%- endmacro %}
