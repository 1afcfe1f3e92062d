{% macro debezium_column_fields(schema_fields) -%}
    filter(
        coalesce(
            get(filter({{ schema_fields }}, field -> field.field = 'after'), 0).fields,
            get(filter({{ schema_fields }}, field -> field.field = 'before'), 0).fields
        ),
        column_field -> column_field.field is not null
    )
{%- endmacro %}
