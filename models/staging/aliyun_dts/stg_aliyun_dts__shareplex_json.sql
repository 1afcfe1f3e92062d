{{ config(enabled=is_format_enabled('dts_shareplex_json')) }}
{%- set landing = source('aliyun_dts', 'dts_shareplex_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

{#
    DTS SharePlex JSON: one message per row-change, `meta` (op, scn, trans, seq, table
    OWNER.TABLE, times), `data` (the row; for updates only the changed columns) and `key`
    (for updates: the row before the change). See _aliyun_dts__docs.md for the decisions.
#}
{%- set empty_row = 'cast(map() as map<string, string>)' -%}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('aliyun_dts__shareplex_op_codes') }}

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
            value,
            '{{ dts_shareplex_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from raw_messages

),

classified as (

    select
        parsed.*,
        parsed.message._corrupt_record as corrupt_record,
        parsed.message.meta.op as source_op,
        parsed.message.meta.`table` as source_table,
        op_codes.event_kind as op_event_kind,
        op_codes.op as change_op,
        coalesce(op_codes.update_half = 'before', false) as is_update_before,
        coalesce(op_codes.update_half = 'after', false) as is_update_after,
        {{ dotted_name_part('parsed.message.meta.`table`', 'database', 'schema') }}
            as database_name,
        {{ dotted_name_part('parsed.message.meta.`table`', 'schema', 'schema') }}
            as schema_name,  -- noqa: RF04
        {{ dotted_name_part('parsed.message.meta.`table`', 'table', 'schema') }}
            as table_name,  -- noqa: RF04
        parsed.message.meta.scn,
        parsed.message.meta.trans as transaction_id,
        {# seq, else the seq part of idx ("seq/size") #}
        try_cast(coalesce(
            parsed.message.meta.seq, nullif(split_part(parsed.message.meta.idx, '/', 1), '')
        ) as bigint) as seq_number,
        transform_values(
            parsed.message.data, (column_name, column_value) -> cast(column_value as string)
        ) as data_row,
        transform_values(
            parsed.message.key, (column_name, column_value) -> cast(column_value as string)
        ) as key_row,
        {# The document's time format, yyyy-MM-ddTHH:mm:ssZ, UTC (its examples omit the Z). #}
        try_to_timestamp(
            parsed.message.meta.time, "yyyy-MM-dd'T'HH:mm:ss[XXX]"
        ) as source_ts,
        try_to_timestamp(
            parsed.message.meta.posttime, "yyyy-MM-dd'T'HH:mm:ss[XXX]"
        ) as sync_ts

    from parsed
    left join op_codes
        on parsed.message.meta.op = op_codes.source_op

),

checked as (

    select
        *,
        {{ table_key('database_name', 'schema_name', 'table_name') }} as table_key,
        case
            when is_update_before then coalesce(data_row, key_row)
        end as update_before_image,
        case
            when raw_value_text is null then 'NULL message value: DTS sends no tombstones'
            when try_parse_json(corrupt_record) is null and corrupt_record is not null
                then {{ invalid_json_reason() }}
            when corrupt_record is not null
                then 'JSON not shaped like a SharePlex message (a field has the wrong type)'
            when source_op is null then 'no meta.op: not a SharePlex message'
            when op_event_kind is null then 'unknown meta.op ' || source_op
            when coalesce(source_table, '') = '' then source_op || ' without meta.table'
            when table_name is null then 'meta.table ' || source_table || ' is not OWNER.TABLE'
            when op_event_kind != 'change' or change_op = 'truncate' then null
            when
                change_op in ('insert', 'update') and not is_update_before and data_row is null
                then source_op || ' without data'
            when
                (change_op = 'delete' or is_update_before)
                and data_row is null
                and key_row is null
                then source_op || ' without data or key'
            when
                is_update_before and (transaction_id is null or seq_number is null)
                then
                    source_op || ' without meta.trans or meta.seq cannot be paired with its'
                    || ' UPDATE AFTER'
        end as message_rejection_reason

    from classified

),

{# UPDATE BEFORE + UPDATE AFTER: within one table and transaction, in seq order, an
   UPDATE AFTER pairs with the UPDATE BEFORE just before it (the same seq or an earlier one).
   One row per half, so that a message delivered twice does not break the pairs. The halves
   are this load's and (incremental runs) the UPDATE BEFOREs staged by earlier loads, so that
   a pair cut by a load boundary is still one update. #}
update_halves as (

    select
        table_key,
        transaction_id,
        seq_number,
        is_update_after,
        max_by(update_before_image, source_position) as update_before_image

    from (
        select
            table_key,
            transaction_id,
            seq_number,
            is_update_after,
            update_before_image,
            source_position
        from checked
        where
            message_rejection_reason is null
            and (is_update_before or is_update_after)
            and transaction_id is not null
            and seq_number is not null
        {% if is_incremental() %}
            union all
            {# event_sequence is scn:trans:seq #}
            select
                table_key,
                transaction_id,
                try_cast(element_at(split(event_sequence, ':'), -1) as bigint) as seq_number,
                false as is_update_after,
                before_row as update_before_image,
                source_position
            from {{ this }}
            where event_kind = 'update_half'
        {% endif %}
    ) as update_half_messages
    group by table_key, transaction_id, seq_number, is_update_after

),

update_half_neighbours as (

    select
        *,
        lag(is_update_after) over (
            partition by table_key, transaction_id order by seq_number, is_update_after
        ) as previous_is_after,
        lag(update_before_image) over (
            partition by table_key, transaction_id order by seq_number, is_update_after
        ) as previous_before_image

    from update_halves

),

paired as (

    select
        checked.*,
        case
            when neighbours.previous_is_after = false then neighbours.previous_before_image
        end as paired_before_image

    from checked
    left join update_half_neighbours as neighbours
        on
            checked.message_rejection_reason is null
            and (checked.is_update_before or checked.is_update_after)
            and checked.table_key = neighbours.table_key
            and checked.transaction_id = neighbours.transaction_id
            and checked.seq_number = neighbours.seq_number
            and checked.is_update_after = neighbours.is_update_after

),

imaged as (

    select
        *,
        case
            when is_update_after and coalesce(key_row, paired_before_image) is not null
                then map_concat(
                    coalesce(key_row, {{ empty_row }}),
                    coalesce(paired_before_image, {{ empty_row }})
                )
            when is_update_after then null
            when change_op = 'update' and not is_update_before then key_row
            when change_op = 'delete' or is_update_before then coalesce(data_row, key_row)
        end as before_row,
        case
            when change_op in ('insert', 'update') and not is_update_before then data_row
        end as after_row

    from paired

),

keyed as (

    select
        *,
        case
            when op_event_kind = 'change' and change_op != 'truncate'
                then coalesce(
                    {{ configured_key_columns('dts_shareplex_primary_keys', 'table_key') }},
                    {# Not configured: every column of `key` (updates), of the UPDATE BEFORE
                       (an UPDATE AFTER without key), else of the row, sorted by name. #}
                    array_sort(map_keys(
                        coalesce(key_row, paired_before_image, identity_image)
                    ))
                )
        end as primary_key_columns,
        case
            when change_op = 'update' and not is_update_before
                then map_concat(coalesce(before_row, {{ empty_row }}), after_row)
            else coalesce(after_row, before_row)
        end as new_identity_image

    from (
        select
            *,
            case when change_op = 'insert' then after_row else before_row end as identity_image
        from imaged
    ) as with_identity_image

),

validated as (

    select
        *,
        {{ key_values_json('new_identity_image', 'primary_key_columns') }} as primary_key,
        case
            when change_op = 'update' and not is_update_before
                then {{ key_values_json('before_row', 'primary_key_columns') }}
        end as before_primary_key,
        case
            when message_rejection_reason is not null then message_rejection_reason
            when op_event_kind != 'change' or change_op = 'truncate' then null
            when is_update_after and before_row is null
                then
                    source_op || ' without key and without an UPDATE BEFORE:'
                    || ' the row before the change is unknown'
            when change_op = 'update' and before_row is null
                then source_op || ' without key: the row before the change is unknown'
            when size(primary_key_columns) = 0 then source_op || ' with no column in its row image'
            {{ when_key_has_no_value('primary_key_columns', 'identity_image') }}
        end as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        case
            when
                rejection_reason is null
                and scn is not null
                and transaction_id is not null
                and seq_number is not null
                then {{ event_id([
                    "'dts_shareplex_json'", 'table_key', 'op_event_kind', 'change_op', 'scn',
                    'transaction_id', 'seq_number',
                ]) }}
            else {{ event_id(["'dts_shareplex_json'", 'message_hash']) }}
        end as event_id,
        {# An UPDATE BEFORE lives on in its UPDATE AFTER's before_row (of this load or a later
           one): an `update_half`, staged so that every landed message gives a staged row,
           kept by no model. One that never finds its UPDATE AFTER is listed by the test
           `assert_every_update_before_has_its_after`. #}
        case when is_update_before then 'update_half' else op_event_kind end
            as message_event_kind,
        'oracle' as db_type,
        coalesce(
            rejection_reason is null and change_op = 'update' and not is_update_before, false
        ) as is_partial,
        case when before_primary_key != primary_key then before_primary_key end
            as previous_primary_key,
        case
            when coalesce(scn, transaction_id, cast(seq_number as string)) is not null
                then concat_ws(
                    ':',
                    coalesce(scn, ''),
                    coalesce(transaction_id, ''),
                    coalesce(cast(seq_number as string), '')
                )
        end as event_sequence,
        scn as source_log_position,
        {# SCN, commit time, the Oracle transaction id usn.slot.sqn, seq; then the landing. #}
        {{ ordering_key([
            "case when scn rlike '^[0-9]+$' then scn end",
            'case when unix_seconds(source_ts) >= 0 then unix_seconds(source_ts) end',
            "try_cast(split_part(transaction_id, '.', 1) as bigint)",
            "try_cast(split_part(transaction_id, '.', 2) as bigint)",
            "try_cast(split_part(transaction_id, '.', 3) as bigint)",
            'case when seq_number >= 0 then seq_number end',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key,
        case
            when rejection_reason is null and op_event_kind = 'schema_change'
                then concat_ws(
                    ' ',
                    source_op,
                    nullif(array_join(array_sort(map_keys(coalesce(data_row, key_row))), ', '), '')
                )
        end as ddl_text

    from validated

),

{{ staged_event_projection(
    'renamed',
    'dts_shareplex_json',
    absent=[
        'unset_columns', 'column_types', 'ddl_meta', 'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
