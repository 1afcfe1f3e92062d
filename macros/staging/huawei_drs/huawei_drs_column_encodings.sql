{% macro huawei_drs_column_encodings(
    type_names, jdbc_codes, binary_jdbc_codes, epoch_second_timestamps
) -%}
    {%- set base_type = "lower(trim(regexp_replace(" ~ type_names
        ~ "[column_name], '[(].*', '')))" -%}
    map_filter(
        map_from_arrays(
            array_distinct(concat(map_keys({{ type_names }}), map_keys({{ jdbc_codes }}))),
            transform(
                array_distinct(concat(map_keys({{ type_names }}), map_keys({{ jdbc_codes }}))),
                column_name -> case
                    when {{ base_type }} = 'bytea' then 'hex'
                    when {{ base_type }} in (
                        'binary', 'varbinary', 'tinyblob', 'blob', 'mediumblob', 'longblob'
                    ) then 'byte_list'
                    when {{ base_type }} = 'timestamp' and {{ epoch_second_timestamps }}
                        then 'epoch_seconds'
                    when coalesce({{ base_type }}, '') = ''
                        and array_contains({{ binary_jdbc_codes }}, {{ jdbc_codes }}[column_name])
                        then 'byte_list'
                end
            )
        ),
        (column_name, encoding) -> encoding is not null
    )
{%- endmacro %}
