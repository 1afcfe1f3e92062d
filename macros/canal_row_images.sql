{# A Canal `data` or `old` array (maps of column to variant) to an array of the change log's
   row maps: every value its text as sent (strings unquoted, JSON null as SQL NULL). #}
{% macro canal_row_images(rows) -%}
    transform(
        {{ rows }},
        row_image -> transform_values(
            row_image, (column_name, column_value) -> cast(column_value as string)
        )
    )
{%- endmacro %}
