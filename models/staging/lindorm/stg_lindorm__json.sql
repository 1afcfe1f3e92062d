{{ config(enabled=is_format_enabled('lindorm_json')) }}
{%- set landing = source('lindorm', 'lindorm_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('lindorm__op_codes') }}

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
        value as raw_value_text,
        sha2(value, 256) as message_hash,
        from_json(
            {{ json_numbers_as_sent('value') }},
            '{{ debezium_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from raw_messages

),

classified as (

    select
        parsed.*,
        parsed.message.payload.op as source_op,
        op_codes.op as change_op,
        {# HBase tables: the row key column is always ROW (the document); SQL tables have none. #}
        case
            when
                array_contains(
                    map_keys(
                        coalesce(parsed.message.payload.after, parsed.message.payload.before)
                    ),
                    'ROW'
                )
                then 'hbase'
            else 'lindorm'
        end as db_type,
        parsed.message.payload.source.db as database_name,
        parsed.message.payload.source.namespace as schema_name,  -- noqa: RF04
        parsed.message.payload.source.table as table_name,  -- noqa: RF04
        {{ table_key(
            'parsed.message.payload.source.db',
            'parsed.message.payload.source.namespace',
            'parsed.message.payload.source.table'
        ) }} as table_key,
        {{ debezium_row_image('parsed.message.payload.before') }} as before_row,
        {{ debezium_row_image('parsed.message.payload.after') }} as after_row,
        {{ debezium_column_types('parsed.message.schema.fields') }} as column_types,
        parsed.message._corrupt_record as corrupt_record,
        parsed.message.payload.source.ts_ms as source_ts_ms,
        parsed.message.payload.ts_ms as sync_ts_ms

    from parsed
    left join op_codes
        on parsed.message.payload.op = op_codes.source_op

),

keyed as (

    select
        *,
        case when change_op = 'delete' then before_row else after_row end as key_image,
        case
            when db_type = 'hbase' then array('ROW')
            else {{ configured_key_columns('lindorm_json_primary_keys', 'table_key') }}
        end as declared_key_columns,
        {# A column of the row before an update that the row after lacks was deleted. #}
        case
            when change_op = 'update' and before_row is not null and after_row is not null
                then filter(
                    map_keys(before_row),
                    column_name -> not map_contains_key(after_row, column_name)
                )
            else cast(array() as array<string>)
        end as unset_columns

    from classified

),

identified as (

    select
        *,
        {# No declared key: the whole row (every column, sorted by name) is the identity. #}
        coalesce(declared_key_columns, array_sort(map_keys(key_image))) as primary_key_columns,
        coalesce(
            declared_key_columns, array_sort(map_keys(before_row))
        ) as previous_key_columns,
        {# HBase updates are always folded onto the row (only cells named in the message
           change); SQL updates are partial when they delete a column. #}
        coalesce(change_op = 'update' and (db_type = 'hbase' or size(unset_columns) > 0), false)
            as is_partial

    from keyed

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        case
            when
                change_op = 'update'
                and forall(previous_key_columns, key_column -> before_row[key_column] is not null)
                then {{ key_values_json('before_row', 'previous_key_columns') }}
        end as before_key,
        case
            when raw_value_text is null
                then 'NULL message value (a Kafka tombstone): Lindorm documents none'
            when
                try_parse_json(corrupt_record) is null
                and corrupt_record is not null
                then {{ invalid_json_reason() }}
            when corrupt_record is not null
                then 'JSON not shaped like a Lindorm message (a field has the wrong type)'
            when source_op is null then 'no payload.op: not a Lindorm message'
            when change_op is null then 'unknown payload.op ' || source_op
            when coalesce(table_name, '') = '' then source_op || ' without payload.source.table'
            when change_op in ('insert', 'update', 'snapshot') and after_row is null
                then source_op || ' without payload.after'
            when change_op = 'delete' and before_row is null
                then source_op || ' without payload.before'
            when change_op = 'update' and before_row is null and declared_key_columns is null
                then
                    source_op || ' without payload.before on a table without a declared key:'
                    || ' the row it changes cannot be found'
            {{ when_key_has_no_value('primary_key_columns', 'key_image') }}
        end as rejection_reason

    from identified

),

renamed as (

    select
        *,
        case
            when message_hash is not null then {{ event_id(["'lindorm_json'", 'message_hash']) }}
            else {{ event_id([
                "'lindorm_json'", 'kafka_topic', 'kafka_partition', 'kafka_offset',
                'source_file', 'source_position',
            ]) }}
        end as event_id,
        'change' as message_event_kind,
        case when before_key != primary_key then before_key end as previous_primary_key,
        {{ epoch_ms_to_timestamp('source_ts_ms') }} as source_ts,
        {{ epoch_ms_to_timestamp('sync_ts_ms') }} as sync_ts,
        {{ ordering_key([
            'try_cast(source_ts_ms as bigint)',
            'try_cast(sync_ts_ms as bigint)',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key

    from validated

),

{{ staged_event_projection(
    'renamed',
    'lindorm_json',
    absent=[
        'event_sequence', 'source_log_position', 'transaction_id', 'ddl_text', 'ddl_meta',
        'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
