{# The change log's table_key: lower-case database.schema.table with empty parts dropped,
   after `<source_name>/` when the row's source is named. Reads the column `source_name`,
   which every staging model carries from its landing table (or its messages). #}
{% macro table_key(database_name, schema_name, table_name) -%}
    lower(concat_ws('/', source_name, array_join(
        filter(
            array({{ database_name }}, {{ schema_name }}, {{ table_name }}),
            part -> part is not null and part != ''
        ),
        '.'
    )))
{%- endmacro %}
