{% macro dataworks_row_image(data_column, column_types) -%}
    transform_values(
        {{ data_column }},
        (column_name, column_value) -> case
            when {{ column_types }}[column_name] = 'DATE'
                then coalesce(
                    date_format(
                        {{ epoch_ms_to_timestamp('cast(column_value as string)') }},
                        'yyyy-MM-dd HH:mm:ss.SSS'
                    ),
                    cast(column_value as string)
                )
            else cast(column_value as string)
        end
    )
{%- endmacro %}
