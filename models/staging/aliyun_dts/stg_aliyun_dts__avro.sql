{{ config(enabled=is_format_enabled('dts_avro')) }}
{%- set landing = source('aliyun_dts', 'dts_avro') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

operations as (

    select * from {{ ref('aliyun_dts__avro_operations') }}

),

{# One pass of the UDF per message: the JSON of the Record, or why it could not be read. #}
decoded as (

    select
        *,
        dts_avro_json_result(value) as decoded_record

    from raw_messages

),

parsed as (

    select
        ---------- lineage
        kafka_topic,
        kafka_partition,
        kafka_offset,
        source_file,
        source_position,
        source_name,
        loaded_at,
        ---------- message
        base64(value) as raw_value_text,
        sha2(value, 256) as message_hash,
        decoded_record.error as decode_error,
        from_json(decoded_record.value, '{{ dts_avro_record_schema() | replace("\n", " ") }}')
            as record

    from decoded

),

classified as (

    select
        parsed.*,
        record.operation as source_op,
        operations.event_kind as operation_kind,
        operations.op as change_op,
        lower(record.source.sourceType) as db_type,
        record.database_name,
        record.schema_name,
        record.table_name,
        {{ table_key('record.database_name', 'record.schema_name', 'record.table_name') }}
            as table_key,
        record.before_images as before_row,
        record.after_images as after_row,
        case
            when operations.op = 'delete' then record.before_images
            else record.after_images
        end as key_image,
        {# DTS names the key in the tag pk_uk_info, e.g. {"PRIMARY":["id"]}. #}
        from_json(record.tags['pk_uk_info'], 'map<string, array<string>>')['PRIMARY']
            as tagged_key_columns,
        map_from_entries(transform(
            filter(record.fields, field -> field.name is not null),
            field -> struct(field.name, cast(field.data_type_number as string))
        )) as column_types,
        cast(record.id as string) as event_sequence

    from parsed
    left join operations
        on parsed.record.operation = operations.operation

),

keyed as (

    select
        *,
        case
            when size(tagged_key_columns) > 0 then tagged_key_columns
            else array_sort(map_keys(key_image))
        end as primary_key_columns

    from classified

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        case
            when decode_error is not null then decode_error
            when record is null then 'NULL message value: DTS sends no tombstones'
            when operation_kind is null then 'unknown operation ' || source_op
            when operation_kind != 'change' then null
            when coalesce(table_name, '') = '' then source_op || ' without a table in objectName'
            when change_op in ('insert', 'update') and after_row is null
                then source_op || ' without afterImages'
            when change_op in ('delete', 'update') and before_row is null
                then source_op || ' without beforeImages'
            {{ when_key_has_no_value('primary_key_columns', 'key_image') }}
        end as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        case
            when rejection_reason is null and record.id is not null
                then {{ event_id(["'dts_avro'", 'table_key', 'operation_kind', 'record.id']) }}
            else {{ event_id(["'dts_avro'", 'message_hash']) }}
        end as event_id,
        operation_kind as message_event_kind,
        case
            when
                change_op = 'update'
                and {{ key_values_json('before_row', 'primary_key_columns') }} != primary_key
                then {{ key_values_json('before_row', 'primary_key_columns') }}
        end as previous_primary_key,
        case
            when record.source_timestamp between 0 and 253402300799
                then timestamp_seconds(record.source_timestamp)
        end as source_ts,
        {{ epoch_ms_to_timestamp('record.born_timestamp') }} as sync_ts,
        record.source_position as source_log_position,
        {{ ordering_key([
            'record.source_timestamp',
            'record.id',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key,
        record.source_txid as transaction_id,
        record.ddl_text

    from validated

),

{{ staged_event_projection(
    'renamed',
    'dts_avro',
    absent=[
        'is_partial', 'unset_columns', 'ddl_meta', 'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
