{# A Huawei DRS row as text (map of column to the text sent) to the change log's row map: bytea
   hex to base64, epoch-second timestamps to UTC text; byte lists stay as sent (decoded by the
   byte_list_to_base64 UDF in a later step: a Python UDF cannot run inside a lambda). #}
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
