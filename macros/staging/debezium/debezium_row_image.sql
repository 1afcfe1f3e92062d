{% macro debezium_row_image(row_object, decimal_scales=none) -%}
    {%- set as_text -%}
        transform_values({{ row_object }}, (column_name, column_value) -> cast(column_value as string))
    {%- endset -%}
    {%- if decimal_scales is none -%}
        {{ as_text }}
    {%- else -%}
        case
            when size({{ decimal_scales }}) > 0
                then transform_values(
                    {{ row_object }},
                    (column_name, column_value) -> case
                        {#- the JSON converter's decimal.format=NUMERIC sends numbers #}
                        when
                            try_element_at({{ decimal_scales }}, column_name) is null
                            or schema_of_variant(column_value) != 'STRING'
                            then cast(column_value as string)
                        else coalesce(
                            {{ debezium_decimal_text(
                                'cast(column_value as string)',
                                'try_element_at(' ~ decimal_scales ~ ', column_name)'
                            ) }},
                            cast(column_value as string)
                        )
                    end
                )
            else {{ as_text }}
        end
    {%- endif -%}
{%- endmacro %}
