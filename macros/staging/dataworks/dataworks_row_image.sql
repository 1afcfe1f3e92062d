{% macro dataworks_row_image(data_column, column_types) -%}
    transform_values(
        {{ data_column }},
        (column_name, column_value) -> case
            when {{ column_types }}[column_name] = 'DATE'
                then coalesce(
                    {{ epoch_ms_to_text('cast(column_value as string)') }},
                    cast(column_value as string)
                )
            else cast(column_value as string)
        end
    )
{%- endmacro %}
