{% macro debezium_decimal_scales(schema_fields) -%}
    map_from_entries(transform(
        filter(
            coalesce({{ debezium_column_fields(schema_fields) }}, array()),
            column_field -> column_field.name = 'org.apache.kafka.connect.data.Decimal'
                and column_field.parameters['scale'] is not null
        ),
        column_field -> struct(column_field.field, column_field.parameters['scale'])
    ))
{%- endmacro %}
