{{ config(enabled=is_format_enabled('maxwell_json')) }}
{%- set landing = source('maxwell', 'maxwell_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('maxwell__op_codes') }}

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
            '{{ maxwell_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from raw_messages

),

classified as (

    select
        parsed.*,
        parsed.message.type as source_op,
        op_codes.event_kind as message_event_kind,
        case when op_codes.event_kind = 'change' then op_codes.op end as change_op,
        {# Maxwell reads the MySQL (or MariaDB) binlog. #}
        'mysql' as db_type,
        parsed.message.database as database_name,
        parsed.message.table as table_name,  -- noqa: RF04
        {{ table_key('parsed.message.database', 'cast(null as string)', 'parsed.message.table') }}
            as table_key,
        {# Row values as text: strings unquoted, numbers with their digits, JSON columns and
           sets (JSON arrays) as JSON text. #}
        transform_values(
            parsed.message.data, (column_name, column_value) -> cast(column_value as string)
        ) as data_image,
        transform_values(
            parsed.message.old, (column_name, column_value) -> cast(column_value as string)
        ) as old_values,
        filter(parsed.message.primary_key_columns, key_column -> key_column is not null)
            as sent_key_columns,
        {# `ts` is seconds for rows; the DDL messages of some versions write milliseconds
           (1477053126000 in Maxwell's own example): a value past 10^11 is read as ms. #}
        case
            when try_cast(parsed.message.ts_ms as bigint) >= 0
                then try_cast(parsed.message.ts_ms as bigint)
            when try_cast(parsed.message.ts as bigint) >= 100000000000
                then try_cast(parsed.message.ts as bigint)
            when try_cast(parsed.message.ts as bigint) >= 0
                then try_cast(parsed.message.ts as bigint) * 1000
        end as event_ms,
        {# `position` is `<binlog file>:<offset>`; the file's number is the digits after its
           last dot (`master.000006`). Both parts non-negative integers or NULL. #}
        case
            when parsed.message.position rlike '^.*\\.[0-9]{1,18}:[0-9]{1,18}$'
                then cast(
                    regexp_extract(parsed.message.position, '\\.([0-9]+):[0-9]+$', 1) as bigint
                )
        end as binlog_file_number,
        case
            when parsed.message.position rlike '^.*\\.[0-9]{1,18}:[0-9]{1,18}$'
                then cast(regexp_extract(parsed.message.position, ':([0-9]+)$', 1) as bigint)
        end as binlog_offset,
        case
            when try_cast(parsed.message.xid as bigint) >= 0
                then try_cast(parsed.message.xid as bigint)
        end as xid,
        case
            when try_cast(parsed.message.xoffset as bigint) >= 0
                then try_cast(parsed.message.xoffset as bigint)
        end as xoffset,
        {# The last row of a transaction has `commit: true` and no `xoffset`. #}
        case when lower(parsed.message.commit) = 'true' then 1 else 0 end as commit_rank

    from parsed
    left join op_codes
        on parsed.message.type = op_codes.source_op

),

{# Message-level checks; a Maxwell message holds one row, so a rejected message is one row. #}
checked as (

    select
        *,
        case
            when raw_value_text is null then 'NULL message value (a Kafka tombstone)'
            when
                try_parse_json(message._corrupt_record) is null
                and message._corrupt_record is not null
                then {{ invalid_json_reason() }}
            when message._corrupt_record is not null
                then 'JSON not shaped like a Maxwell message (a field has the wrong type)'
            when coalesce(source_op, '') = '' then 'no type: not a Maxwell message'
            when message_event_kind is null then 'unknown type ' || source_op
            when message_event_kind = 'schema_change' and coalesce(database_name, '') = ''
                then source_op || ' without database'
            when message_event_kind != 'change' then null
            when coalesce(database_name, '') = '' then source_op || ' without database'
            when coalesce(table_name, '') = '' then source_op || ' without table'
            when coalesce(cardinality(data_image), 0) = 0 then source_op || ' without data'
        end as message_rejection_reason

    from classified

),

{# The images: `data` is the row after an insert, bootstrap row or update and the deleted
   row; the before-image of an update is `data` overlaid with `old` (only the columns that
   changed, a `null` in it meaning "was NULL"), as Maxwell's docs say (`data.merge(old)`). #}
imaged as (

    select
        *,
        case
            when change_op = 'update' then map_concat(data_image, coalesce(old_values, map()))
            when change_op = 'delete' then data_image
        end as before_row,
        case
            when change_op in ('insert', 'snapshot', 'update') then data_image
        end as after_row,
        {# The key's values: the row after, or the deleted row (both in `data`). #}
        data_image as key_image

    from checked

),

keyed as (

    select
        *,
        case
            when change_op is null then null
            when size(sent_key_columns) > 0 then sent_key_columns
            {# No primary_key_columns (output_primary_key_columns off, or a table without a
               key): the columns the var `maxwell_json_primary_keys` names for the table, else
               the whole row (every column, sorted by name). #}
            else coalesce(
                {{ configured_key_columns('maxwell_json_primary_keys', 'table_key') }},
                array_sort(map_keys(key_image))
            )
        end as primary_key_columns

    from imaged

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        {{ key_values_json('before_row', 'primary_key_columns') }} as before_key,
        coalesce(
            message_rejection_reason,
            case
                when change_op is null then null
                {{ when_key_has_no_value('primary_key_columns', 'key_image') }}
            end
        ) as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        {{ event_id(["'maxwell_json'", 'message_hash']) }} as event_id,
        case
            when change_op = 'update' and before_key != primary_key then before_key
        end as previous_primary_key,
        {{ epoch_ms_to_timestamp('event_ms') }} as source_ts,
        message.xoffset as event_sequence,
        message.position as source_log_position,
        {# The binlog position when sent (output_binlog_position: bootstrap rows carry the
           position where the bootstrap read them), then `ts` (the binlog event's second, or
           the bootstrap's), `xid` (increasing within a server's life), the transaction's last
           row (`commit: true`, which has no `xoffset`) after the others, `xoffset`, then the
           Kafka offset, load time and file position. #}
        {{ ordering_key([
            'binlog_file_number',
            'binlog_offset',
            'event_ms',
            'xid',
            'commit_rank',
            'xoffset',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key,
        message.xid as transaction_id,
        case when message_event_kind = 'schema_change' then message.sql end as ddl_text,
        case when message_event_kind = 'schema_change' then message.def end as ddl_meta

    from validated

),

{{ staged_event_projection(
    'renamed',
    'maxwell_json',
    absent=[
        'schema_name', 'is_partial', 'unset_columns', 'column_types', 'sync_ts', 'ddl_summary',
        'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
