{% macro dataworks_staged_events(decoded_messages, source_format) -%}

op_codes as (

    select * from {{ ref('dataworks__op_codes') }}

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
        decode_error,
        raw_value_text,
        sha2(raw_value_text, 256) as message_hash,
        from_json(
            message_json,
            '{{ dataworks_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from {{ decoded_messages }}

),

classified as (

    select
        parsed.*,
        message.payload.op as source_op,
        op_codes.event_kind as op_event_kind,
        op_codes.op as change_op,
        coalesce(message.payload.op = 'UPDATE_BEFOR', false) as is_update_before,
        message.payload.op in ('UPDATE_AFTER', 'UPDATE') as is_update_after,
        lower(message.schema.source.dbType) as db_type,
        message.schema.source.dbName as database_name,
        message.schema.source.schemaName as schema_name,
        message.schema.source.tableName as table_name,
        {{ table_key(
            'message.schema.source.dbName',
            'message.schema.source.schemaName',
            'message.schema.source.tableName'
        ) }} as table_key,
        map_from_entries(transform(
            filter(message.schema.dataColumn, data_column -> data_column.name is not null),
            data_column -> struct(data_column.name, data_column.type)
        )) as column_types,
        message.payload.sequenceId as event_sequence

    from parsed
    left join op_codes
        on parsed.message.payload.op = op_codes.source_op

),

imaged as (

    select
        *,
        {{ dataworks_row_image('message.payload.before.dataColumn', 'column_types') }}
            as sent_before_row,
        {{ dataworks_row_image('message.payload.after.dataColumn', 'column_types') }}
            as after_row

    from classified

),

keyed as (

    select
        *,
        case
            when size(message.schema.primaryKey) > 0 then message.schema.primaryKey
            {# No primary key: the RDS hidden row id is the row's identity where it is sent,
               else the whole row (every column, sorted by name). #}
            when array_contains(map_keys(key_image), '#alibaba_rds_row_id#')
                then array('#alibaba_rds_row_id#')
            else array_sort(map_keys(key_image))
        end as primary_key_columns

    from (
        select
            *,
            case
                when change_op = 'delete' or is_update_before then sent_before_row
                else after_row
            end as key_image
        from imaged
    ) as with_key_image

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        case
            when decode_error is not null then decode_error
            when raw_value_text is null then 'NULL message value: DataWorks sends no tombstones'
            when try_parse_json(message._corrupt_record) is null
                and message._corrupt_record is not null
                then {{ invalid_json_reason() }}
            when message._corrupt_record is not null
                then 'JSON not shaped like a DataWorks message (a field has the wrong type)'
            when source_op is null then 'no payload.op: not a DataWorks message'
            when op_event_kind is null then 'unknown payload.op ' || source_op
            when op_event_kind != 'change' then null
            when coalesce(table_name, '') = '' then source_op || ' without schema.source.tableName'
            when change_op = 'truncate' then null
            when (change_op = 'insert' or is_update_after) and after_row is null
                then source_op || ' without payload.after.dataColumn'
            when (change_op = 'delete' or is_update_before) and sent_before_row is null
                then source_op || ' without payload.before.dataColumn'
            {{ when_key_has_no_value('primary_key_columns', 'key_image') }}
            when is_update_before and event_sequence is null
                then 'UPDATE_BEFOR without sequenceId cannot be paired with its UPDATE_AFTER'
        end as rejection_reason

    from keyed

),

accepted as (

    select * from validated where rejection_reason is null

),

{# The UPDATE_BEFOR halves an UPDATE_AFTER can pair with: this load's, and (incremental runs)
   those staged by earlier loads, so that a pair cut by a load boundary is still one update. #}
update_befores as (

    select
        table_key,
        event_sequence,
        max_by(before_row, source_position) as paired_before_row

    from (
        select
            table_key,
            event_sequence,
            sent_before_row as before_row,
            source_position
        from accepted
        where is_update_before
        {% if is_incremental() %}
            union all
            select
                table_key,
                event_sequence,
                before_row,
                source_position
            from {{ this }}
            where event_kind = 'update_half'
        {% endif %}
    ) as update_before_halves
    group by table_key, event_sequence

),

{# An update sent as two messages becomes one row with both images. #}
paired_events as (

    select
        accepted.*,
        case
            when accepted.is_update_after
                then coalesce(accepted.sent_before_row, update_befores.paired_before_row)
            else accepted.sent_before_row
        end as before_row

    from accepted
    left join update_befores
        on
            accepted.is_update_after
            and accepted.table_key = update_befores.table_key
            and accepted.event_sequence = update_befores.event_sequence
    where not accepted.is_update_before

),

{# The UPDATE_BEFOR of a pair: staged as an `update_half` (no model keeps it; its image lives
   on in the UPDATE_AFTER above, or in one a later load brings), so that every landed message
   gives a staged row. One that never finds its UPDATE_AFTER is listed by the test
   `assert_every_update_before_has_its_after`. #}
update_before_halves as (

    select
        accepted.*,
        accepted.sent_before_row as before_row

    from accepted
    where accepted.is_update_before

),

rejected as (

    select
        *,
        sent_before_row as before_row

    from validated
    where rejection_reason is not null

),

all_events as (

    select * from paired_events
    union all
    select * from update_before_halves
    union all
    select * from rejected

),

renamed as (

    select
        *,
        case
            when rejection_reason is null and event_sequence is not null
                then {{ event_id([
                    "'" ~ source_format ~ "'", 'table_key', 'op_event_kind', 'change_op',
                    'event_sequence',
                ]) }}
            else {{ event_id(["'" ~ source_format ~ "'", 'message_hash']) }}
        end as event_id,
        case when is_update_before then 'update_half' else op_event_kind end
            as message_event_kind,
        case
            when
                is_update_after
                and {{ key_values_json('before_row', 'primary_key_columns') }} != primary_key
                then {{ key_values_json('before_row', 'primary_key_columns') }}
        end as previous_primary_key,
        {{ epoch_ms_to_timestamp('message.payload.timestamp.eventTime') }} as source_ts,
        {{ epoch_ms_to_timestamp('message.payload.timestamp.systemTime') }} as sync_ts,
        message.payload.scn as source_log_position,
        {{ ordering_key([
            'event_sequence',
            'message.payload.timestamp.eventTime',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key,
        message.payload.ddl.text as ddl_text,
        message.payload.ddl.ddlMeta as ddl_meta,
        {# The statement read from ddlMeta's FastSQL AST (Java-serialized, base64) by UDFs. #}
        ddl_meta_summary(message.payload.ddl.ddlMeta) as ddl_summary,
        ddl_meta_summary_error(message.payload.ddl.ddlMeta) as ddl_meta_error

    from all_events

),

{{ staged_event_projection(
    'renamed',
    source_format,
    absent=['is_partial', 'unset_columns', 'transaction_id', 'row_index'],
) }}

{%- endmacro %}
