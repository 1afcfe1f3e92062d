{% macro typed_value_from_text(value, spark_type, source_type=none) -%}
    {%- set target = (spark_type or 'string') | trim | lower -%}
    {%- set logical_type = (source_type or '') | trim | lower -%}
    {%- set epoch_days = ['io.debezium.time.date', 'org.apache.kafka.connect.data.date'] -%}
    {%- set epoch_millis = [
        'io.debezium.time.timestamp', 'org.apache.kafka.connect.data.timestamp',
    ] -%}
    {%- if target == 'string' -%}
        {{ value }}
    {%- elif target == 'binary' -%}
        try_to_binary({{ value }}, 'base64')
    {%- elif target == 'date' and logical_type in epoch_days -%}
        date_add(date'1970-01-01', try_cast({{ value }} as int))
    {%- elif target == 'timestamp' and logical_type in epoch_millis -%}
        timestamp_millis(try_cast({{ value }} as bigint))
    {%- elif target == 'timestamp' and logical_type == 'io.debezium.time.microtimestamp' -%}
        timestamp_micros(try_cast({{ value }} as bigint))
    {%- elif target == 'timestamp' and logical_type == 'io.debezium.time.nanotimestamp' -%}
        timestamp_micros(try_cast({{ value }} as bigint) div 1000)
    {%- elif target in ('tinyint', 'smallint', 'int', 'integer', 'bigint') -%}
        {#- a whole number a writer sent as 1000.0 or 1E+3 is still that number -#}
        {%- set as_decimal = "try_cast(" ~ value ~ " as decimal(38, 18))" -%}
        coalesce(try_cast({{ value }} as {{ target }}), try_cast(
            case when {{ as_decimal }} % 1 = 0 then {{ as_decimal }} end as {{ target }}
        ))
    {%- else -%}
        try_cast({{ value }} as {{ target }})
    {%- endif -%}
{%- endmacro %}
