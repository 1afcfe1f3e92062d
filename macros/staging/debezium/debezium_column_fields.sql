{# The column fields of the Kafka Connect `schema` part of a Debezium / Lindorm message: those
   of its `after` struct, else of its `before` (a delete has no `after`), each with a name.
   NULL when the message has no schema. #}
{% macro debezium_column_fields(schema_fields) -%}
    filter(
        coalesce(
            get(filter({{ schema_fields }}, field -> field.field = 'after'), 0).fields,
            get(filter({{ schema_fields }}, field -> field.field = 'before'), 0).fields
        ),
        column_field -> column_field.field is not null
    )
{%- endmacro %}
