{{ config(enabled=is_format_enabled('aws_dms_json')) }}
{%- set landing = source('aws_dms', 'aws_dms_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

{%- set before_image = aws_dms_before_image_settings() -%}
{%- set prefix_length = before_image.prefix | length -%}
{%- set suffix_length = before_image.suffix | length -%}
{#- A column of `data` that an add-before-image-columns rule added: the prefix and suffix around
    a name of at least one character. Neither set: no column is one. -#}
{%- if prefix_length + suffix_length > 0 -%}
    {%- set is_before_image_column =
        "startswith(column_name, '" ~ before_image.prefix ~ "')"
        ~ " and endswith(column_name, '" ~ before_image.suffix ~ "')"
        ~ " and length(column_name) > " ~ (prefix_length + suffix_length) -%}
{%- else -%}
    {%- set is_before_image_column = 'false' -%}
{%- endif %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('aws_dms__op_codes') }}

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
            '{{ aws_dms_message_schema(before_image.field) | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from raw_messages

),

classified as (

    select
        parsed.*,
        parsed.message.metadata.`record-type` as record_type,
        parsed.message.metadata.operation as source_op,
        {# A data record's operation must be one of the seed's; a control record is a schema
           change whatever its operation (DMS adds control operations over time; none of them
           carries a row). #}
        coalesce(
            op_codes.event_kind,
            case when parsed.message.metadata.`record-type` = 'control' then 'schema_change' end
        ) as message_event_kind,
        case when op_codes.event_kind = 'change' then op_codes.op end as change_op,
        {# DMS names the source schema (a MySQL database, a PostgreSQL or Oracle schema) and
           the table; not the database server or its kind. #}
        nullif(parsed.message.metadata.`schema-name`, '') as schema_name,  -- noqa: RF04
        nullif(parsed.message.metadata.`table-name`, '') as table_name,  -- noqa: RF04
        {{ table_key(
            'cast(null as string)',
            "nullif(parsed.message.metadata.`schema-name`, '')",
            "nullif(parsed.message.metadata.`table-name`, '')",
        ) }} as table_key,
        {# Row values as text: strings unquoted, numbers with their digits as sent. #}
        transform_values(
            parsed.message.data, (column_name, column_value) -> cast(column_value as string)
        ) as data_values,
        transform_values(
            parsed.message.`{{ before_image.field }}`,
            (column_name, column_value) -> cast(column_value as string)
        ) as before_image_field,
        {# `timestamp` is when DMS wrote the record (microseconds, UTC); `commit-timestamp`
           the source's commit time (IncludeTransactionDetails). #}
        try_cast(parsed.message.metadata.timestamp as timestamp) as dms_ts,
        try_cast(parsed.message.metadata.`commit-timestamp` as timestamp) as commit_ts

    from parsed
    left join op_codes
        on
            parsed.message.metadata.`record-type` = op_codes.record_type  -- noqa: RF05
            and parsed.message.metadata.operation = op_codes.source_op

),

{# The row without the before-image columns, and those columns under their own names. #}
split as (

    select
        *,
        map_filter(
            data_values, (column_name, column_value) -> not ({{ is_before_image_column }})
        ) as row_image,
        transform_keys(
            map_filter(data_values, (column_name, column_value) -> {{ is_before_image_column }}),
            (column_name, column_value) -> substr(
                column_name,
                {{ prefix_length + 1 }},
                length(column_name) - {{ prefix_length + suffix_length }}
            )
        ) as before_image_columns

    from classified

),

{# Message-level checks; a DMS message holds one row, so a rejected message is one row. #}
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
                then 'JSON not shaped like an AWS DMS message (a field has the wrong type)'
            when message.metadata is null then 'no metadata: not an AWS DMS message'
            when coalesce(record_type, '') = '' then 'no record-type: not an AWS DMS message'
            when coalesce(source_op, '') = '' then record_type || ' record without operation'
            when message_event_kind is null
                then 'unknown ' || record_type || ' operation ' || source_op
            when coalesce(table_name, '') = '' then source_op || ' without table-name'
            when message_event_kind != 'change' then null
            when row_image is null or cardinality(row_image) = 0 then source_op || ' without data'
        end as message_rejection_reason

    from split

),

{# The images: `data` is the row after a load, insert or update, and the deleted row. An
   update's before image is `data` overlaid with the before-image columns and then the
   before-image field, when the task sends either (a column the before image leaves out reads
   as in `data`); without one, the update has no before row. #}
imaged as (

    select
        *,
        case
            when
                change_op = 'update'
                and (before_image_field is not null or size(before_image_columns) > 0)
                then map_concat(
                    row_image, before_image_columns, coalesce(before_image_field, map())
                )
            when change_op = 'delete' then row_image
        end as before_row,
        case
            when change_op in ('insert', 'snapshot', 'update') then row_image
        end as after_row

    from checked

),

keyed as (

    select
        *,
        case
            when change_op is null then null
            {# DMS sends no key list: the columns the var `aws_dms_json_primary_keys` names
               for the table, else the whole row (every column, sorted by name). #}
            else coalesce(
                {{ configured_key_columns('aws_dms_json_primary_keys', 'table_key') }},
                array_sort(map_keys(row_image))
            )
        end as primary_key_columns

    from imaged

),

validated as (

    select
        *,
        {{ key_values_json('row_image', 'primary_key_columns') }} as primary_key,
        {{ key_values_json('before_row', 'primary_key_columns') }} as before_key,
        coalesce(
            message_rejection_reason,
            case
                when change_op is null then null
                {{ when_key_has_no_value('primary_key_columns', 'row_image') }}
            end
        ) as rejection_reason

    from keyed

),

renamed as (

    select
        *,
        {{ event_id(["'aws_dms_json'", 'message_hash']) }} as event_id,
        case
            when change_op = 'update' and before_key != primary_key then before_key
        end as previous_primary_key,
        commit_ts as source_ts,
        dms_ts as sync_ts,
        message.metadata.`transaction-record-id` as event_sequence,
        message.metadata.`stream-position` as source_log_position,
        {# DMS's own time of the record (microseconds; the order DMS applies the full load and
           then the changes in), then the Kafka offset, load time and file position.
           transaction-id and transaction-record-id are kept but not ordered by: transaction
           ids are the source engine's (not commit-ordered in general) and record ids restart
           in every transaction. See _ordering__docs.md. #}
        {{ ordering_key([
            'case when unix_micros(dms_ts) >= 0 then unix_micros(dms_ts) end',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key,
        message.metadata.`transaction-id` as transaction_id,
        case when message_event_kind = 'schema_change' then message.control end as ddl_meta

    from validated

),

{{ staged_event_projection(
    'renamed',
    'aws_dms_json',
    absent=[
        'db_type', 'database_name', 'is_partial', 'unset_columns', 'column_types', 'ddl_text',
        'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
