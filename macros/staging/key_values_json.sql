{% macro key_values_json(row_image, key_columns) -%}
    case
        when {{ row_image }} is not null and size({{ key_columns }}) > 0
            then to_json(transform({{ key_columns }}, key_column -> {{ row_image }}[key_column]))
    end
{%- endmacro %}
