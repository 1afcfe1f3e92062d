{% macro huawei_drs_staged_events(
    raw_messages, source_format, delete_row_field, epoch_second_timestamps
) -%}

op_codes as (

    select * from {{ ref('huawei_drs__op_codes') }}

),

jdbc_type_codes as (

    select * from {{ ref('huawei_drs__jdbc_type_codes') }}

),

{# One row: JDBC code to type name, and the codes whose values DRS sends as byte lists. #}
jdbc_lookup as (

    select
        map_from_entries(
            collect_list(struct(cast(jdbc_code as string), jdbc_type_name))
        ) as jdbc_type_names,
        collect_list(case when is_binary then cast(jdbc_code as string) end)
            as binary_jdbc_codes

    from jdbc_type_codes

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
            '{{ huawei_drs_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from {{ raw_messages }}

),

classified as (

    select
        parsed.*,
        coalesce(parsed.message.type, parsed.message.opType) as source_op,
        op_codes.event_kind as op_event_kind,
        op_codes.op as op_code_op,
        {# A TRUNCATE statement empties the table: a change of every row and a schema change. #}
        coalesce(
            op_codes.event_kind = 'schema_change'
            and parsed.message.sql rlike '(?i)^\\s*truncate\\b'
            and coalesce(parsed.message.`table`, '') != '',
            false
        ) as is_truncate,
        ---------- where the rows live
        case
            when parsed.message._corrupt_record is null and parsed.raw_value_text is not null
                then {{ huawei_drs_db_type('parsed.message.dbType') }}
        end as db_type,
        parsed.message.database as database_name,
        parsed.message.schema as schema_name,
        {# MySQL names cannot end with a space: one there is an artifact (the vendor's example
           sends "test "). Other databases' names are kept as sent. #}
        case
            when parsed.message.dbType is null then rtrim(parsed.message.`table`)
            else parsed.message.`table`
        end as table_name,
        ---------- column types
        coalesce(
            parsed.message.mysqlType,
            parsed.message.columnType,
            cast(map() as map<string, string>)
        ) as type_names,
        coalesce(parsed.message.sqlType, cast(map() as map<string, string>)) as jdbc_codes,
        jdbc_lookup.jdbc_type_names,
        jdbc_lookup.binary_jdbc_codes,
        ---------- order
        parsed.message.id as event_sequence

    from parsed
    left join op_codes
        on coalesce(parsed.message.type, parsed.message.opType) = op_codes.source_op
    cross join jdbc_lookup

),

described as (

    select
        *,
        case when is_truncate then 'change' else op_event_kind end as message_event_kind,
        case when is_truncate then 'truncate' else op_code_op end as change_op,
        {{ table_key('database_name', 'schema_name', 'table_name') }} as table_key,
        {# The source type name; where none is sent (Oracle, SQL Server), the JDBC type name. #}
        map_filter(
            map_from_arrays(
                array_distinct(concat(map_keys(type_names), map_keys(jdbc_codes))),
                transform(
                    array_distinct(concat(map_keys(type_names), map_keys(jdbc_codes))),
                    column_name -> case
                        when trim(type_names[column_name]) != '' then type_names[column_name]
                        else jdbc_type_names[jdbc_codes[column_name]]
                    end
                )
            ),
            (column_name, type_name) -> type_name is not null
        ) as sent_column_types,
        {{ huawei_drs_column_encodings(
            'type_names', 'jdbc_codes', 'binary_jdbc_codes', epoch_second_timestamps
        ) }} as column_encodings

    from classified

),

{# The array that holds one row per change: `data`, except for deletes in JSON (`old`). #}
located as (

    select
        *,
        case
            when change_op = 'delete' then message.{{ delete_row_field }}
            else message.data
        end as row_objects,
        {# NULL rather than empty when the message sends no column at all (DDL). #}
        case when size(sent_column_types) > 0 then sent_column_types end as column_types

    from described

),

message_checked as (

    select
        *,
        case
            when raw_value_text is null then 'NULL message value: DRS sends no tombstones'
            when
                try_parse_json(message._corrupt_record) is null
                and message._corrupt_record is not null
                then {{ invalid_json_reason() }}
            when message._corrupt_record is not null
                then 'JSON not shaped like a DRS message (a field has the wrong type)'
            when source_op is null then 'no type: not a DRS JSON message'
            when message.type != message.opType
                then 'type ' || message.type || ' and opType ' || message.opType || ' disagree'
            when op_event_kind is null then 'unknown type ' || source_op
            when not (event_sequence rlike '^[0-9]{1,38}$')
                then 'id is not a sequence number: ' || left(event_sequence, 40)
            when message_event_kind = 'schema_change' and coalesce(trim(message.sql), '') = ''
                then source_op || ' without sql'
            when message_event_kind != 'change' then null
            when coalesce(table_name, '') = '' then source_op || ' without table'
            when change_op = 'truncate' then null
            when coalesce(size(row_objects), 0) = 0
                then source_op || ' without '
                    || case when change_op = 'delete' then '{{ delete_row_field }}' else 'data' end
                    || ' rows'
            when
                change_op = 'update'
                and coalesce(size(message.old), 0) != size(message.data)
                then 'UPDATE with ' || size(message.data) || ' data rows but '
                    || coalesce(size(message.old), 0) || ' old rows'
        end as message_rejection_reason

    from located

),

{# One row per row-change: row_index i pairs data[i] with old[i]; other events keep one row. #}
exploded as (

    select
        message_checked.*,
        row_indexes.row_index

    from message_checked
    lateral view explode(
        sequence(
            0,
            case
                when
                    message_rejection_reason is null
                    and message_event_kind = 'change'
                    and change_op != 'truncate'
                    then size(row_objects) - 1
                else 0
            end
        )
    ) row_indexes as row_index

),

row_objects as (

    select
        *,
        case
            when
                message_rejection_reason is null
                and change_op in ('insert', 'update', 'snapshot')
                then try_element_at(message.data, row_index + 1)
        end as after_object,
        case
            when message_rejection_reason is null and change_op = 'update'
                then try_element_at(message.old, row_index + 1)
            when message_rejection_reason is null and change_op = 'delete'
                then try_element_at(row_objects, row_index + 1)
        end as before_object,
        'data[' || row_index || ']' as after_field,
        case
            when change_op = 'update' then 'old[' || row_index || ']'
            else '{{ delete_row_field }}[' || row_index || ']'
        end as before_field

    from exploded

),

sent_images as (

    select
        *,
        transform_values(
            after_object, (column_name, column_value) -> cast(column_value as string)
        ) as after_sent,
        {# DRS sends whole old rows; columns old would leave out are taken from data. #}
        case
            when change_op = 'update'
                then map_concat(
                    map_filter(
                        transform_values(
                            after_object,
                            (column_name, column_value) -> cast(column_value as string)
                        ),
                        (column_name, column_text) -> not map_contains_key(
                            before_object, column_name
                        )
                    ),
                    transform_values(
                        before_object,
                        (column_name, column_value) -> cast(column_value as string)
                    )
                )
            else transform_values(
                before_object, (column_name, column_value) -> cast(column_value as string)
            )
        end as before_sent

    from row_objects

),

{# Byte lists are decoded by a Python UDF, which cannot run inside a lambda: one row per
   binary value, decoded, then folded back into its image by the join below. #}
byte_list_cells as (

    select
        sent_images.source_file,
        sent_images.source_position,
        sent_images.loaded_at,
        sent_images.row_index,
        cells.image_side,
        cells.image_field,
        cells.column_name,
        cells.column_text

    from sent_images
    lateral view inline(
        concat(
            transform(
                map_entries(map_filter(
                    coalesce(sent_images.before_sent, map()),
                    (column_name, column_text) ->
                        sent_images.column_encodings[column_name] = 'byte_list'
                        and column_text is not null
                )),
                cell -> struct(
                    'before' as image_side,
                    sent_images.before_field as image_field,
                    cell.key as column_name,
                    cell.value as column_text
                )
            ),
            transform(
                map_entries(map_filter(
                    coalesce(sent_images.after_sent, map()),
                    (column_name, column_text) ->
                        sent_images.column_encodings[column_name] = 'byte_list'
                        and column_text is not null
                )),
                cell -> struct(
                    'after' as image_side,
                    sent_images.after_field as image_field,
                    cell.key as column_name,
                    cell.value as column_text
                )
            )
        )
    ) cells as image_side, image_field, column_name, column_text

),

decoded_cells as (

    select
        *,
        byte_list_to_base64(column_text) as column_base64,
        byte_list_to_base64_error(column_text) as decode_error

    from byte_list_cells

),

decoded_byte_lists as (

    select
        source_file,
        source_position,
        loaded_at,
        row_index,
        map_from_entries(collect_list(
            case when image_side = 'before' then struct(column_name, column_base64) end
        )) as before_bytes,
        map_from_entries(collect_list(
            case when image_side = 'after' then struct(column_name, column_base64) end
        )) as after_bytes,
        min(
            case
                when decode_error is not null
                    then image_field || ': binary column ' || column_name
                        || ' is not a byte list (' || decode_error || ')'
            end
        ) as byte_list_error

    from decoded_cells
    group by source_file, source_position, loaded_at, row_index

),

imaged as (

    select
        sent_images.*,
        decoded_byte_lists.byte_list_error,
        transform_values(
            {{ huawei_drs_row_image('sent_images.before_sent', 'sent_images.column_encodings') }},
            (column_name, column_text) -> case
                when sent_images.column_encodings[column_name] = 'byte_list'
                    then decoded_byte_lists.before_bytes[column_name]
                else column_text
            end
        ) as sent_before_row,
        transform_values(
            {{ huawei_drs_row_image('sent_images.after_sent', 'sent_images.column_encodings') }},
            (column_name, column_text) -> case
                when sent_images.column_encodings[column_name] = 'byte_list'
                    then decoded_byte_lists.after_bytes[column_name]
                else column_text
            end
        ) as sent_after_row,
        {# bytea that is not hex: the first such column (by name) of either image #}
        array_min(filter(
            map_keys(sent_images.before_sent),
            column_name -> sent_images.column_encodings[column_name] = 'hex'
                and not (
                    sent_images.before_sent[column_name]
                    rlike '^([\\\\]x)?([0-9a-fA-F][0-9a-fA-F])*$'
                )
        )) as before_bad_hex_column,
        array_min(filter(
            map_keys(sent_images.after_sent),
            column_name -> sent_images.column_encodings[column_name] = 'hex'
                and not (
                    sent_images.after_sent[column_name]
                    rlike '^([\\\\]x)?([0-9a-fA-F][0-9a-fA-F])*$'
                )
        )) as after_bad_hex_column

    from sent_images
    left join decoded_byte_lists
        on
            sent_images.source_file <=> decoded_byte_lists.source_file
            and sent_images.source_position <=> decoded_byte_lists.source_position
            and sent_images.loaded_at <=> decoded_byte_lists.loaded_at
            and sent_images.row_index = decoded_byte_lists.row_index

),

keyed as (

    select
        *,
        case
            when size(filter(message.pkNames, key_column -> key_column is not null)) > 0
                then filter(message.pkNames, key_column -> key_column is not null)
            {# No primary key: the whole row (every column, sorted by name) is the identity. #}
            else array_sort(map_keys(key_image))
        end as key_columns

    from (
        select
            *,
            case when change_op = 'delete' then sent_before_row else sent_after_row end as key_image,
            case when change_op = 'delete' then before_field else after_field end as key_field
        from imaged
    ) as with_key_image

),

row_checked as (

    select
        *,
        {{ key_values_json('key_image', 'key_columns') }} as key_values,
        case
            when message_rejection_reason is not null then message_rejection_reason
            when message_event_kind != 'change' or change_op = 'truncate' then null
            when change_op != 'delete' and after_object is null
                then source_op || ' with a null ' || after_field
            when change_op in ('update', 'delete') and before_object is null
                then source_op || ' with a null ' || before_field
            when byte_list_error is not null then byte_list_error
            when before_bad_hex_column is not null
                then before_field || ': bytea column ' || before_bad_hex_column || ' is not hex'
            when after_bad_hex_column is not null
                then after_field || ': bytea column ' || after_bad_hex_column || ' is not hex'
            when not exists(
                transform(key_columns, key_column -> key_image[key_column]),
                key_value -> key_value is not null
            )
                then 'no value for primary key column(s) '
                    || array_join(key_columns, ', ') || ' in ' || key_field
        end as row_rejection_reason

    from keyed

),

{# A message is staged whole or rejected whole (with its first row's reason): it is the unit
   that is delivered, re-delivered and replayed. #}
validated as (

    select
        *,
        first(row_rejection_reason, true) over (
            partition by source_file, source_position, loaded_at
            order by row_index
            rows between unbounded preceding and unbounded following
        ) as rejection_reason

    from row_checked

),

renamed as (

    select
        *,
        case
            when rejection_reason is null and event_sequence is not null
                then {{ event_id([
                    "'" ~ source_format ~ "'", 'table_key', 'event_sequence', 'row_index',
                ]) }}
            else {{ event_id(["'" ~ source_format ~ "'", 'message_hash', 'row_index']) }}
        end as event_id,
        {# A rejected message keeps its text (raw_value), not half-read images. #}
        case when rejection_reason is null then sent_before_row end as before_row,
        case when rejection_reason is null then sent_after_row end as after_row,
        case when rejection_reason is null then key_columns end as primary_key_columns,
        case when rejection_reason is null then key_values end as primary_key,
        case
            when
                rejection_reason is null
                and change_op = 'update'
                and {{ key_values_json('sent_before_row', 'key_columns') }} != key_values
                then {{ key_values_json('sent_before_row', 'key_columns') }}
        end as previous_primary_key,
        {{ epoch_ms_to_timestamp('message.es') }} as source_ts,
        {{ epoch_ms_to_timestamp('message.ts') }} as sync_ts,
        {{ ordering_key([
            'event_sequence',
            "case when message.es rlike '^[0-9]{1,38}$' then message.es end",
            "case when message.ts rlike '^[0-9]{1,38}$' then message.ts end",
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
            'row_index',
        ]) }} as ordering_key,
        case
            when message_event_kind = 'schema_change' or change_op = 'truncate' then message.sql
        end as ddl_text

    from validated
    where rejection_reason is null or row_index = 0

),

{{ staged_event_projection(
    'renamed',
    source_format,
    absent=[
        'is_partial', 'unset_columns', 'source_log_position', 'transaction_id', 'ddl_meta',
        'ddl_summary', 'ddl_meta_error',
    ],
) }}

{%- endmacro %}
