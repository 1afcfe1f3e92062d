{% macro debezium_column_types(schema_fields) -%}
    {%- set column_fields = debezium_column_fields(schema_fields) -%}
    case
        when size({{ column_fields }}) > 0
            then map_from_entries(transform(
                {{ column_fields }},
                column_field -> struct(
                    column_field.field,
                    coalesce(
                        case
                            when
                                column_field.name = 'org.apache.kafka.connect.data.Decimal'
                                and column_field.parameters['scale'] rlike '^[0-9]{1,2}$'
                                then concat(
                                    'decimal(',
                                    coalesce(
                                        column_field.parameters['connect.decimal.precision'],
                                        '38'
                                    ),
                                    ',',
                                    column_field.parameters['scale'],
                                    ')'
                                )
                        end,
                        column_field.name,
                        column_field.type
                    )
                )
            ))
    end
{%- endmacro %}
