{% macro table_key(database_name, schema_name, table_name) -%}
    lower(concat_ws('/', source_name, array_join(
        filter(
            array({{ database_name }}, {{ schema_name }}, {{ table_name }}),
            part -> part is not null and part != ''
        ),
        '.'
    )))
{%- endmacro %}
