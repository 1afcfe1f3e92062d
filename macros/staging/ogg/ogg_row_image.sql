{% macro ogg_row_image(image) -%}
    map_filter(
        transform_values({{ image }}, (column_name, column_value) -> cast(column_value as string)),
        (column_name, column_value) -> not (
            (
                endswith(column_name, '_isMissing')
                and map_contains_key({{ image }}, left(column_name, length(column_name) - 10))
            )
            or coalesce(
                lower(cast({{ image }}[column_name || '_isMissing'] as string)) = 'true', false
            )
        )
    )
{%- endmacro %}
