{{ config(enabled=is_format_enabled('ogg_json')) }}
{%- set landing = source('ogg', 'ogg_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

{#
    Oracle GoldenGate JSON (the Big Data JSON formatter, operation modeled): one message per
    operation, `table` ([CATALOG.]SCHEMA.TABLE), `op_type` I/U/D/T, `op_ts`, `current_ts`,
    `pos`, `primary_keys`, `before`, `after`. See _ogg__docs.md for the decisions.
#}
{%- set empty_row = 'cast(map() as map<string, string>)' -%}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('ogg__op_codes') }}

),

parsed as (

    select
        ---------- lineage
        kafka_topic,
        kafka_partition,
        kafka_offset,
        kafka_timestamp,
        source_file,
        source_position,
        source_name,
        loaded_at,
        ---------- message
        value as raw_value_text,
        {# The message without its `current_ts` (when the formatter wrote it): a replicat
           that restarts from its checkpoint formats the same operations again, differing
           only there, and they are one event. #}
        sha2(regexp_replace(value, '"current_ts" *: *"[^"\\\\]*"', ''), 256) as message_hash,
        from_json(
            {{ json_numbers_as_sent('value') }},
            '{{ ogg_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from raw_messages

),

classified as (

    select
        parsed.*,
        parsed.message._corrupt_record as corrupt_record,
        parsed.message.op_type as source_op,
        parsed.message.`table` as source_table,
        op_codes.event_kind as message_event_kind,
        op_codes.op as change_op,
        {# `SCHEMA.TABLE`, or `CATALOG.SCHEMA.TABLE` (a container database's PDB, a SQL
           Server database): a two-part name's first part is the schema. #}
        {{ dotted_name_part('parsed.message.`table`', 'database', 'schema') }}
            as database_name,
        {{ dotted_name_part('parsed.message.`table`', 'schema', 'schema') }}
            as schema_name,  -- noqa: RF04
        {{ dotted_name_part('parsed.message.`table`', 'table', 'schema') }}
            as table_name,  -- noqa: RF04
        {{ ogg_row_image('parsed.message.before') }} as before_image,
        {{ ogg_row_image('parsed.message.after') }} as after_image,
        filter(parsed.message.primary_keys, key_column -> key_column is not null)
            as sent_key_columns,
        {# `pos`: the trail file's sequence number and the record's offset (RBA) in it,
           zero-padded digits: compared as a number. #}
        case
            when parsed.message.pos rlike '^[0-9]{1,38}$'
                then cast(cast(parsed.message.pos as decimal(38, 0)) as string)
        end as pos_number,
        {# `op_ts` `yyyy-MM-dd HH:mm:ss.ffffff`, `current_ts` the same with a `T` (the
           formatter's ISO-8601 default): read as UTC, the trail's time. #}
        try_cast(parsed.message.op_ts as timestamp) as op_ts,
        try_cast(parsed.message.current_ts as timestamp) as current_ts

    from parsed
    left join op_codes
        on parsed.message.op_type = op_codes.source_op

),

checked as (

    select
        *,
        {{ table_key('database_name', 'schema_name', 'table_name') }} as table_key,
        case
            when raw_value_text is null then 'NULL message value (a Kafka tombstone)'
            when try_parse_json(corrupt_record) is null and corrupt_record is not null
                then {{ invalid_json_reason() }}
            when corrupt_record is not null
                then 'JSON not shaped like a GoldenGate message (a field has the wrong type)'
            when coalesce(source_op, '') = '' then 'no op_type: not a GoldenGate JSON message'
            when message_event_kind is null then 'unknown op_type ' || left(source_op, 64)
            when coalesce(source_table, '') = '' then source_op || ' without table'
            {# Spark reads a JSON array or object into a string field as its text. #}
            when left(source_table, 1) || right(source_table, 1) in ('[]', '{}')
                then 'table name is a JSON array or object, not text'
            when table_name is null
                then
                    source_op || ' with a table that is not SCHEMA.TABLE or'
                    || ' CATALOG.SCHEMA.TABLE (an empty part, or more than three)'
            when change_op = 'truncate' then null
            when change_op in ('insert', 'update') and after_image is null
                then source_op || ' without after'
            when change_op = 'delete' and before_image is null
                then source_op || ' without before: the deleted row is unknown'
        end as message_rejection_reason

    from classified

),

{# The images: an insert's row is `after`; a delete's `before` (with compressed deletes only
   the key); an update's `after` holds the new values of the columns the trail has (with
   compressed updates, GoldenGate's default, the key and the changed columns only), so every
   update is partial: the history folds it onto the row as it was. Its `before`, when sent,
   holds the previous values of those columns. #}
imaged as (

    select
        *,
        case when change_op in ('update', 'delete') then before_image end as before_row,
        case when change_op in ('insert', 'update') then after_image end as after_row,
        {# The key's values: the new row's (an update's `after`, a column it lacks from
           `before`), or the deleted row's. #}
        case
            when change_op = 'insert' then after_image
            when change_op = 'update'
                then map_concat(coalesce(before_image, {{ empty_row }}), after_image)
            when change_op = 'delete' then before_image
        end as key_image

    from checked

),

keyed as (

    select
        *,
        case
            when message_rejection_reason is not null or change_op = 'truncate' then null
            when size(sent_key_columns) > 0 then sent_key_columns
            {# No primary_keys (the formatter's includePrimaryKeys is off by default): the
               columns the var `ogg_json_primary_keys` names for the table, else the whole
               row (every column, sorted by name). #}
            else coalesce(
                {{ configured_key_columns('ogg_json_primary_keys', 'table_key') }},
                array_sort(map_keys(key_image))
            )
        end as primary_key_columns

    from imaged

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        {# The row's key before an update, when `before` has every key column (a
           primary-key update's `before` holds the old key). #}
        case
            when
                change_op = 'update'
                and before_row is not null
                and forall(
                    primary_key_columns, key_column -> map_contains_key(before_row, key_column)
                )
                then {{ key_values_json('before_row', 'primary_key_columns') }}
        end as before_key,
        case
            when message_rejection_reason is not null then message_rejection_reason
            when change_op = 'truncate' then null
            when size(primary_key_columns) = 0 then source_op || ' with no column in its row image'
            {{ when_key_has_no_value('primary_key_columns', 'key_image') }}
        end as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        {{ event_id(["'ogg_json'", 'message_hash']) }} as event_id,
        coalesce(rejection_reason is null and change_op = 'update', false) as is_partial,
        case when before_key != primary_key then before_key end as previous_primary_key,
        op_ts as source_ts,
        coalesce(current_ts, kafka_timestamp) as sync_ts,
        message.pos as event_sequence,
        message.pos as source_log_position,
        {# The trail position first: the trail holds committed transactions in commit order
           and each operation's record after the one before it. `op_ts` is the operation's
           own time, not the commit's, so it is not monotonic in trail order (an operation
           of a transaction that committed later can be older): only a tie-break, then
           `current_ts`, the Kafka offset, load time and file position. #}
        {{ ordering_key([
            'pos_number',
            'case when unix_micros(op_ts) >= 0 then unix_micros(op_ts) end',
            'case when unix_micros(current_ts) >= 0 then unix_micros(current_ts) end',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key

    from validated

),

{{ staged_event_projection(
    'renamed',
    'ogg_json',
    absent=[
        'db_type', 'unset_columns', 'column_types', 'transaction_id', 'ddl_text', 'ddl_meta',
        'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
