{# The change log's table_key: lower-case database.schema.table with empty parts dropped. #}
{% macro table_key(database_name, schema_name, table_name) -%}
    lower(array_join(
        filter(
            array({{ database_name }}, {{ schema_name }}, {{ table_name }}),
            part -> part is not null and part != ''
        ),
        '.'
    ))
{%- endmacro %}
