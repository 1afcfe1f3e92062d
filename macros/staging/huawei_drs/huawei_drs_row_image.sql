{% macro huawei_drs_row_image(row_text, column_encodings) -%}
    transform_values(
        {{ row_text }},
        (column_name, column_text) -> case {{ column_encodings }}[column_name]
            when 'hex' then base64(unhex(regexp_replace(column_text, '^\\\\x', '')))
            when 'epoch_seconds' then {{ epoch_seconds_to_text('column_text') }}
            else column_text
        end
    )
{%- endmacro %}
