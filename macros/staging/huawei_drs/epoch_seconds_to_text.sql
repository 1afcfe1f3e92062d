{% macro epoch_seconds_to_text(epoch_seconds) -%}
    case
        when {{ epoch_seconds }} rlike '^[0-9]{1,11}([.][0-9]{1,9})?$'
            then date_format(
                timestamp_seconds(cast(split_part({{ epoch_seconds }}, '.', 1) as bigint)),
                'yyyy-MM-dd HH:mm:ss'
            )
            || case
                when {{ epoch_seconds }} like '%.%'
                    then '.' || split_part({{ epoch_seconds }}, '.', 2)
                else ''
            end
        else {{ epoch_seconds }}
    end
{%- endmacro %}
