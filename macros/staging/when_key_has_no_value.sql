{% macro when_key_has_no_value(key_columns, key_image) -%}
    when not exists(
        transform({{ key_columns }}, key_column -> {{ key_image }}[key_column]),
        key_value -> key_value is not null
    )
        then 'no value for primary key column(s) '
            || array_join({{ key_columns }}, ', ') || ' in the row image'
{%- endmacro %}
