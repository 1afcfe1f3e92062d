{% macro spark_type_for_source_type(source_type, db_type="cast(null as string)") -%}
    {%- set type_text = "lower(trim(" ~ source_type ~ "))" -%}
    {#- the name without its arguments and sign words: `int(10) unsigned` -> `int` -#}
    {%- set base_name -%}
        trim(regexp_replace(
            regexp_replace({{ type_text }}, '\\([^)]*\\)|\\b(unsigned|signed|zerofill)\\b', ' '),
            '\\s+',
            ' '
        ))
    {%- endset -%}
    {%- set precision -%}
        try_cast(regexp_extract({{ type_text }}, '^[^(]*\\(\\s*([0-9]+)', 1) as int)
    {%- endset -%}
    {%- set scale -%}
        try_cast(regexp_extract({{ type_text }}, '^[^(]*\\(\\s*[0-9]+\\s*,\\s*(-?[0-9]+)', 1) as int)
    {%- endset -%}
    {%- set is_unsigned = type_text ~ " rlike '\\\\bunsigned\\\\b'" -%}
    {%- set int_names = [
        'tinyint', 'smallint', 'mediumint', 'int2', 'int4', 'int16', 'int32', 'short',
        'smallserial', 'serial', 'serial4', 'year', 'numberint',
    ] -%}
    {%- set bigint_names = [
        'bigint', 'int8', 'int64', 'long', 'bigserial', 'serial8', 'numberlong',
        'io.debezium.time.time', 'io.debezium.time.microtime', 'io.debezium.time.nanotime',
    ] -%}
    {%- set decimal_names = ['decimal', 'numeric', 'number', 'dec', 'fixed'] -%}
    {%- set double_names = [
        'float', 'double', 'real', 'double precision', 'float4', 'float8', 'float32',
        'float64', 'binary_float', 'binary_double', 'numberdouble',
    ] -%}
    {%- set date_names = [
        'date', 'newdate', 'io.debezium.time.date', 'org.apache.kafka.connect.data.date',
    ] -%}
    {%- set timestamp_names = [
        'datetime', 'datetime2', 'smalldatetime', 'datetimeoffset', 'timestamp', 'timestamptz',
        'timestamp with time zone', 'timestamp without time zone',
        'timestamp with local time zone', 'isodate',
        'io.debezium.time.timestamp', 'io.debezium.time.microtimestamp',
        'io.debezium.time.nanotimestamp', 'io.debezium.time.zonedtimestamp',
        'org.apache.kafka.connect.data.timestamp',
    ] -%}
    {%- set binary_names = [
        'binary', 'varbinary', 'blob', 'tinyblob', 'mediumblob', 'longblob', 'bytea', 'raw',
        'long raw', 'image', 'bytes', 'bindata', 'rowversion', 'geometry', 'point',
        'linestring', 'polygon', 'io.debezium.data.bits', 'org.apache.kafka.connect.data.decimal',
    ] -%}
    case
        when {{ source_type }} is null or trim({{ source_type }}) = '' then 'string'
        {# MySQL binlog type codes (DTS `dataTypeNumber`); other sources' codes are unknown #}
        when {{ type_text }} rlike '^-?[0-9]+$'
            then case
                when coalesce({{ db_type }} != 'mysql', true) then 'string'
                when {{ type_text }} in ('1', '2', '9', '13') then 'int'
                when {{ type_text }} in ('3', '8') then 'bigint'
                when {{ type_text }} in ('4', '5') then 'double'
                when {{ type_text }} in ('0', '246') then 'decimal(38,18)'
                when {{ type_text }} in ('7', '12', '17', '18') then 'timestamp'
                when {{ type_text }} in ('10', '14') then 'date'
                when {{ type_text }} = '255' then 'binary'
                else 'string'
            end
        when {{ base_name }} in ('int', 'integer', 'mediumint') and {{ is_unsigned }}
            then 'bigint'
        when {{ base_name }} = 'bigint' and {{ is_unsigned }} then 'decimal(20,0)'
        when {{ base_name }} in ('int', 'integer', '{{ int_names | join("', '") }}') then 'int'
        when {{ base_name }} in ('{{ bigint_names | join("', '") }}') then 'bigint'
        when {{ base_name }} in ('{{ decimal_names | join("', '") }}')
            then case
                {# no precision (DRS `decimal`, Oracle NUMBER): 20 integer, 18 fraction digits #}
                when {{ precision }} is null then 'decimal(38,18)'
                when {{ precision }} > 38 then 'string'
                else concat(
                    'decimal(', {{ precision }}, ',',
                    least(greatest(coalesce({{ scale }}, 0), 0), {{ precision }}), ')'
                )
            end
        when {{ base_name }} in ('decimal128', 'numberdecimal') then 'decimal(38,18)'
        when {{ base_name }} in ('money', 'smallmoney') and {{ db_type }} = 'sqlserver'
            then 'decimal(19,4)'
        when {{ base_name }} in ('{{ double_names | join("', '") }}') then 'double'
        when {{ base_name }} in ('boolean', 'bool') then 'boolean'
        when {{ base_name }} = 'bit' and coalesce({{ precision }}, 1) = 1 then 'boolean'
        {# DataWorks' DATE holds any date/time (epoch ms), Oracle's DATE a time of day too #}
        when
            {{ base_name }} = 'date'
            and (trim({{ source_type }}) = 'DATE' or {{ db_type }} = 'oracle')
            then 'timestamp'
        when {{ base_name }} in ('{{ date_names | join("', '") }}') then 'date'
        {# SQL Server's timestamp is rowversion: bytes #}
        when {{ base_name }} = 'timestamp' and {{ db_type }} = 'sqlserver' then 'binary'
        when {{ base_name }} in ('{{ timestamp_names | join("', '") }}') then 'timestamp'
        when {{ base_name }} in ('{{ binary_names | join("', '") }}') then 'binary'
        else 'string'
    end
{%- endmacro %}
