{{ config(enabled=is_format_enabled('datahub_tuple')) }}
{%- set landing = source('datahub', 'datahub_tuple') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

{#
    DataHub Tuple topic rows written by DataWorks real-time sync, landed as one JSON object per
    row: six metadata columns plus the source row's columns. An update is two rows with
    the same _sequence_id_ (before image, after image). See _datahub__docs.md.
#}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('datahub__tuple_op_codes') }}

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
        sha2(value, 256) as message_hash,
        try_parse_json(value) is not null as is_json,
        transform_values(
            from_json(value, 'map<string, variant>'),
            (field_name, field_value) -> cast(field_value as string)
        ) as tuple_row

    from raw_messages

),

classified as (

    select
        parsed.*,
        parsed.tuple_row['_operation_type_'] as source_op,
        op_codes.op as change_op,
        parsed.tuple_row['_sequence_id_'] as event_sequence,
        parsed.tuple_row['_excute_time_'] as execute_time,
        parsed.tuple_row['_source_table_'] as source_table,
        parsed.tuple_row['_before_image_'] as before_image_flag,
        parsed.tuple_row['_after_image_'] as after_image_flag,
        {{ dotted_name_part("parsed.tuple_row['_source_table_']", 'database', 'database') }}
            as database_name,
        {{ dotted_name_part("parsed.tuple_row['_source_table_']", 'schema', 'database') }}
            as schema_name,  -- noqa: RF04
        {{ dotted_name_part("parsed.tuple_row['_source_table_']", 'table', 'database') }}
            as table_name,  -- noqa: RF04
        {# Every field that is not a metadata column is a column of the source row. #}
        map_filter(
            parsed.tuple_row,
            (field_name, field_value) -> not array_contains(
                array(
                    '_sequence_id_', '_operation_type_', '_excute_time_', '_source_table_',
                    '_before_image_', '_after_image_'
                ),
                field_name
            )
        ) as column_row

    from parsed
    left join op_codes
        on parsed.tuple_row['_operation_type_'] = op_codes.source_op

),

checked as (

    select
        *,
        {{ table_key('database_name', 'schema_name', 'table_name') }} as table_key,
        '_operation_type_ ' || coalesce(source_op, '') || ' with _before_image_ '
        || coalesce(before_image_flag, '(none)') || ' and _after_image_ '
        || coalesce(after_image_flag, '(none)') as image_flags_text,
        coalesce(
            change_op = 'update'
            and before_image_flag = 'Y'
            and after_image_flag is distinct from 'Y',
            false
        ) as is_update_before,
        coalesce(
            change_op = 'update'
            and after_image_flag = 'Y'
            and before_image_flag is distinct from 'Y',
            false
        ) as is_update_after

    from classified

),

message_checked as (

    select
        *,
        case
            when raw_value_text is null then 'NULL message value: a Tuple row is never empty'
            when not is_json then {{ invalid_json_reason() }}
            when tuple_row is null then 'not a JSON object: a Tuple row is one object of fields'
            when source_op is null then 'no _operation_type_: not a DataHub Tuple row'
            when change_op is null then 'unknown _operation_type_ ' || source_op
            when coalesce(source_table, '') = '' then source_op || ' row without _source_table_'
            when table_name is null
                then
                    '_source_table_ ' || source_table
                    || ' is not TABLE, DATABASE.TABLE or DATABASE.SCHEMA.TABLE'
            when
                change_op = 'insert'
                and (
                    coalesce(before_image_flag, 'N') != 'N'
                    or coalesce(after_image_flag, 'Y') != 'Y'
                )
                then image_flags_text || ': the image flags do not match the operation'
            when
                change_op = 'delete'
                and (
                    coalesce(before_image_flag, 'Y') != 'Y'
                    or coalesce(after_image_flag, 'N') != 'N'
                )
                then image_flags_text || ': the image flags do not match the operation'
            when change_op = 'update' and not (is_update_before or is_update_after)
                then image_flags_text || ': neither half of an update'
            when size(column_row) = 0
                then source_op || ' row has no column besides the metadata columns'
            when change_op = 'update' and event_sequence is null
                then
                    'U row without _sequence_id_ cannot be paired with the other half'
                    || ' of its update'
        end as message_rejection_reason

    from checked

),

{# An update is two rows with the same _sequence_id_: the before half and the after half.
   The before halves an after half can pair with: this load's, and (incremental runs) those
   staged by earlier loads, so that a pair cut by a load boundary is still one update. #}
update_befores as (

    select
        table_key,
        event_sequence,
        max_by(before_image, source_position) as before_image

    from (
        select
            table_key,
            event_sequence,
            column_row as before_image,
            source_position
        from message_checked
        where message_rejection_reason is null and is_update_before
        {% if is_incremental() %}
            union all
            select
                table_key,
                event_sequence,
                before_row as before_image,
                source_position
            from {{ this }}
            where event_kind = 'update_half'
        {% endif %}
    ) as update_before_halves
    group by table_key, event_sequence

),

paired as (

    select
        message_checked.*,
        update_befores.before_image as paired_before_image

    from message_checked
    left join update_befores
        on
            message_checked.message_rejection_reason is null
            and message_checked.is_update_after
            and message_checked.table_key = update_befores.table_key
            and message_checked.event_sequence = update_befores.event_sequence

),

imaged as (

    select
        *,
        case
            when is_update_after then paired_before_image
            when change_op = 'delete' or is_update_before then column_row
        end as before_row,
        case
            when change_op = 'insert' or is_update_after then column_row
        end as after_row

    from paired

),

keyed as (

    select
        *,
        coalesce(
            {{ configured_key_columns('datahub_tuple_primary_keys', 'table_key') }},
            {# No key is declared in a Tuple row: the whole row, every column sorted by name. #}
            array_sort(map_keys(coalesce(before_row, after_row)))
        ) as primary_key_columns

    from (
        select
            *,
            case
                when change_op = 'delete' or is_update_before then before_row else after_row
            end as key_image
        from imaged
    ) as with_key_image

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        case
            when is_update_after
                then {{ key_values_json('before_row', 'primary_key_columns') }}
        end as before_primary_key,
        case
            when message_rejection_reason is not null then message_rejection_reason
            when is_update_after and paired_before_image is null
                then
                    'U after image with _sequence_id_ ' || event_sequence
                    || ' has no before image'
            {{ when_key_has_no_value('primary_key_columns', 'key_image') }}
        end as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        case
            when rejection_reason is null and event_sequence is not null
                then {{ event_id([
                    "'datahub_tuple'", 'table_key', "'change'", 'change_op', 'event_sequence',
                ]) }}
            else {{ event_id(["'datahub_tuple'", 'message_hash']) }}
        end as event_id,
        {# A before half lives on in its after half's before_row (of this load or a later
           one): an `update_half`, staged so that every landed message gives a staged row,
           kept by no model. One that never finds its after half is listed by the test
           `assert_every_update_before_has_its_after`. #}
        case when is_update_before then 'update_half' else 'change' end as message_event_kind,
        case when before_primary_key != primary_key then before_primary_key end
            as previous_primary_key,
        {{ epoch_ms_to_timestamp('execute_time') }} as source_ts,
        kafka_timestamp as sync_ts,
        {{ ordering_key([
            "case when event_sequence rlike '^[0-9]+$' then event_sequence end",
            "case when execute_time rlike '^[0-9]+$' then execute_time end",
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key

    from validated

),

{{ staged_event_projection(
    'renamed',
    'datahub_tuple',
    absent=[
        'db_type', 'is_partial', 'unset_columns', 'column_types', 'source_log_position',
        'transaction_id', 'ddl_text', 'ddl_meta', 'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
