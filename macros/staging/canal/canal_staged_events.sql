{% macro canal_staged_events(
    raw_messages, source_format, layout_var=none, numbers_as_sent=false, new_messages=none
) -%}

{%- set legacy_layout = layout_var is not none
    and (var(layout_var, false) | string | lower) == 'true' -%}

op_codes as (

    select * from {{ ref('canal__op_codes') }}

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
            {{ json_numbers_as_sent('value') if numbers_as_sent else 'value' }},
            '{{ canal_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from {{ raw_messages }}

),

{# The fields used below are picked here, not the whole message passed on: each operator
   holding a lambda (the key checks) copies every column it passes on. #}
classified as (

    select
        parsed.* except (message),
        parsed.message._corrupt_record as corrupt_record,
        parsed.message.id as message_id,
        parsed.message.sql as message_sql,
        parsed.message.type as source_op,
        {# isDdl wins over type: a DDL is a schema change whatever its type, except TRUNCATE,
           which is also a change (it deletes every row). #}
        case
            when lower(parsed.message.isDdl) = 'true' and op_codes.op = 'truncate' then 'change'
            when lower(parsed.message.isDdl) = 'true' then 'schema_change'
            else op_codes.event_kind
        end as message_event_kind,
        case
            when lower(parsed.message.isDdl) = 'true' and op_codes.op != 'truncate' then null
            when op_codes.event_kind = 'change' then op_codes.op
        end as change_op,
        {# Canal reads the MySQL binlog; DTS Canal JSON carries mysqlType and binlog times. #}
        'mysql' as db_type,
        parsed.message.database as database_name,
        parsed.message.table as table_name,
        {{ table_key('parsed.message.database', 'cast(null as string)', 'parsed.message.table') }}
            as table_key,
        parsed.message.mysqlType as column_types,
        filter(parsed.message.pkNames, key_column -> key_column is not null) as key_names,
        parsed.message.data as data_images,
        parsed.message.old as old_images,
        {{ canal_es_ms('parsed.message') }} as es_ms,
        {# The other ordering fields, as es: non-negative integers or NULL (sortable_number
           needs digits). #}
        case
            when try_cast(parsed.message.ts as bigint) >= 0
                then try_cast(parsed.message.ts as bigint)
        end as ts_ms,
        case
            when try_cast(parsed.message.id as bigint) >= 0
                then try_cast(parsed.message.id as bigint)
        end as batch_id,
        nullif(parsed.message.gtid, '') as gtid

    from parsed
    left join op_codes
        on parsed.message.type = op_codes.source_op

),

{# Message-level checks; a message that fails them is one rejected row, never N. #}
checked as (

    select
        *,
        case
            when raw_value_text is null then 'NULL message value (a Kafka tombstone)'
            when try_parse_json(corrupt_record) is null
                and corrupt_record is not null
                then {{ invalid_json_reason() }}
            when corrupt_record is not null
                then 'JSON not shaped like a Canal message (a field has the wrong type)'
            when coalesce(source_op, '') = '' then 'no type: not a Canal message'
            when message_event_kind is null then 'unknown type ' || source_op
            when message_event_kind != 'change' then null
            when coalesce(table_name, '') = '' then source_op || ' without table'
            when change_op = 'truncate' then null
            {% if legacy_layout %}
            when change_op = 'delete' and coalesce(size(old_images), 0) = 0
                then 'DELETE without old: in the legacy layout (var {{ layout_var }}) '
                    || 'old holds the deleted row'
                    || case
                        when size(data_images) > 0
                            then '; this one has it in data, as the current layout does'
                        else ''
                    end
            when change_op = 'update' and coalesce(size(old_images), 0) = 0
                then 'UPDATE without old: in the legacy layout (var {{ layout_var }}) '
                    || 'old holds the new row'
            when change_op = 'delete' then null
            {% elif layout_var is not none %}
            when change_op = 'delete' and coalesce(size(data_images), 0) = 0
                and size(old_images) > 0
                then 'DELETE without data; its row is in old, as DTS instances created '
                    || 'before 2022-03-20 send it (set var {{ layout_var }}: true)'
            {% endif %}
            when coalesce(size(data_images), 0) = 0 then source_op || ' without data'
        end as message_rejection_reason

    from classified

),

{# One row per row-change of a valid change message (row_index = position in the array that
   carries the rows); every other message stays one row. #}
exploded as (

    select
        *,
        explode(
            case
                when
                    message_rejection_reason is null
                    and change_op is not null
                    and change_op != 'truncate'
                    {% if legacy_layout %}
                    then sequence(0, size(
                        case when change_op = 'delete' then old_images else data_images end
                    ) - 1)
                    {% else %}
                    then sequence(0, size(data_images) - 1)
                    {% endif %}
                else array(0)
            end
        ) as row_index

    from checked

),

{# The images. Current layout: `data` is the row after an insert or update and the deleted
   row; the before-image of an update is `data` overlaid with `old` (open-source Canal sends
   only the changed columns in `old`, DTS every column: the overlay is right for both).
   Legacy DTS layout: `data` is the row before an update, `old` the row after it (overlaid
   on `data` in case it is partial), and a deleted row is in `old`. #}
imaged as (

    select
        *,
        {% if legacy_layout %}
        case
            when change_op = 'update' then try_element_at(data_images, row_index + 1)
            when change_op = 'delete' then try_element_at(old_images, row_index + 1)
        end as before_row,
        case
            when change_op in ('insert', 'snapshot') then try_element_at(data_images, row_index + 1)
            when change_op = 'update'
                then map_concat(
                    try_element_at(data_images, row_index + 1),
                    try_element_at(old_images, row_index + 1)
                )
        end as after_row
        {% else %}
        case
            when change_op = 'update'
                then map_concat(
                    try_element_at(data_images, row_index + 1),
                    try_element_at(old_images, row_index + 1)
                )
            when change_op = 'delete' then try_element_at(data_images, row_index + 1)
        end as before_row,
        case
            when change_op in ('insert', 'snapshot', 'update')
                then try_element_at(data_images, row_index + 1)
        end as after_row
        {% endif %}

    from exploded

),

keyed as (

    select
        *,
        case
            when size(key_names) > 0 then key_names
            {# pkNames empty, null or absent (real Canal sends all three): the key columns the
               var `<format>_primary_keys` names for the table, else the whole row (every
               column, sorted by name) is its identity. #}
            else coalesce(
                {{ configured_key_columns(source_format ~ '_primary_keys', 'table_key') }},
                array_sort(map_keys(key_image))
            )
        end as primary_key_columns

    from (
        select
            *,
            case when change_op = 'delete' then before_row else after_row end as key_image
        from imaged
    ) as with_key_image

),

validated as (

    select
        *,
        {{ key_values_json('key_image', 'primary_key_columns') }} as primary_key,
        {{ key_values_json('before_row', 'primary_key_columns') }} as before_key,
        coalesce(
            message_rejection_reason,
            case
                when change_op is null or change_op = 'truncate' then null
                when coalesce(cardinality(key_image), 0) = 0
                    then source_op || ' without a row image at index ' || row_index
                    {% if legacy_layout %}
                    || case
                        when change_op = 'update'
                            then ' (legacy layout: old holds the new row)'
                        else ''
                    end
                    {% endif %}
                when not exists(
                    transform(primary_key_columns, key_column -> key_image[key_column]),
                    key_value -> key_value is not null
                )
                    then 'no value for primary key column(s) '
                        || array_join(primary_key_columns, ', ') || ' in the row image'
            end
        ) as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        {{ canal_event_id(source_format, 'message_hash', 'row_index') }} as event_id,
        case
            when change_op = 'update' and before_key != primary_key then before_key
        end as previous_primary_key,
        {{ epoch_ms_to_timestamp('es_ms') }} as source_ts,
        {{ epoch_ms_to_timestamp('ts_ms') }} as sync_ts,
        message_id as event_sequence,
        {# es (binlog time, whole seconds), then ts (when Canal/DTS built the message: it
           breaks ties within a second and, unlike the batch id, keeps increasing across a
           Canal restart), then id (batch id: repeated within a batch, may be 0), then the
           Kafka offset, load time, file position and the row's index in the message. #}
        {{ ordering_key([
            'es_ms',
            'ts_ms',
            'batch_id',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
            'row_index',
        ]) }} as ordering_key,
        gtid as transaction_id,
        case
            when message_event_kind = 'schema_change' or change_op = 'truncate' then message_sql
        end as ddl_text

    from validated

),

{{ staged_event_projection(
    'renamed',
    source_format,
    absent=[
        'schema_name', 'is_partial', 'unset_columns', 'source_log_position', 'ddl_meta',
        'ddl_summary', 'ddl_meta_error',
    ],
    events_may_repeat=new_messages.landed_twice if new_messages else true,
    new_source_ts_range=new_messages.source_ts_range if new_messages else none,
    delivered_before=new_messages.delivered_before if new_messages else true,
) }}

{%- endmacro %}
