{# A Debezium / Lindorm row object (map of column to variant) to the change log's row map:
   every value its JSON text (strings unquoted, numbers with their digits, objects as JSON). #}
{% macro debezium_row_image(row_object) -%}
    transform_values({{ row_object }}, (column_name, column_value) -> cast(column_value as string))
{%- endmacro %}
