{{ config(enabled=is_format_enabled('debezium_json')) }}
{%- set landing = source('debezium', 'debezium_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

{%- set envelope_fields = [
    'op', 'ts_ms', 'before', 'after', 'patch', 'filter', 'updateDescription', 'source',
    'transaction', 'status', 'id', 'ddl', 'databaseName', 'tableChanges',
] -%}

{%- set message_source_names = (
    'unwrapped.message_source_name,'
    ~ ' case when unwrapped.message_table is null then unwrapped.topic_prefix end'
    if var('cdc_lake_source_from_message') else 'cast(null as string)'
) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

op_codes as (

    select * from {{ ref('debezium__op_codes') }}

),

parsed as (

    select
        ---------- lineage
        kafka_topic,
        kafka_partition,
        kafka_offset,
        kafka_key,
        kafka_timestamp,
        source_file,
        source_position,
        source_name as landed_source_name,
        loaded_at,
        ---------- message
        value as raw_value_text,
        {# The same change sent again by a restarted connector differs only in when the
           connector handled it: macro debezium_resent_text. #}
        sha2({{ debezium_resent_text('value') }}, 256) as message_hash,
        from_json(
            {{ json_numbers_as_sent('value') }},
            '{{ debezium_message_schema("variant") | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message,
        from_json(kafka_key, 'map<string, variant>') as key_object

    from raw_messages

),

{# The JSON converter writes `{"schema": ..., "payload": {envelope}}` with schemas enabled and
   the bare envelope without: told apart per message. The same holds for the Kafka key. #}
unwrapped as (

    select
        parsed.*,
        coalesce(
            parsed.message.payload,
            struct(
                {%- for field in envelope_fields %}
                    parsed.message.`{{ field }}` as `{{ field }}`{{ "," if not loop.last }}
                {%- endfor %}
            )
        ) as envelope,
        case
            when
                size(parsed.key_object) = 2
                and map_contains_key(parsed.key_object, 'schema')
                and map_contains_key(parsed.key_object, 'payload')
                then try_cast(parsed.key_object['payload'] as map<string, variant>)  -- noqa: LT01
            else parsed.key_object
        end as key_fields,
        {# Oracle and some other connectors send no table in `source`: Debezium also names it
           in the envelope schema (`server1.DEBEZIUM.CUSTOMERS.Envelope`), used next; then
           the topic (below). #}
        coalesce(
            nullif(coalesce(parsed.message.payload.source.table, parsed.message.source.table), ''),
            nullif(
                coalesce(
                    parsed.message.payload.source.collection, parsed.message.source.collection
                ),
                ''
            ),
            nullif(regexp_extract(parsed.message.schema.name, '([^.]+)[.]Envelope$', 1), '')
        ) as message_table,
        nullif(coalesce(parsed.message.payload.source.name, parsed.message.source.name), '')
            as message_source_name,
        split(parsed.kafka_topic, '[.]') as topic_parts,
        nullif(regexp_extract(parsed.kafka_topic, '^(.+)[.][^.]*[.][^.]*$', 1), '')
            as topic_prefix,
        {{ debezium_decimal_scales('parsed.message.schema.fields') }} as decimal_scales

    from parsed

),

{# A message that names no table (Flink's debezium-json writer sends only before, after and
   op) is named by its topic as Debezium names topics, `<topic.prefix>.<schema>.<table>`
   (MySQL: `<topic.prefix>.<database>.<table>`): the last part is the table; in a topic of
   three parts or more the part before it is the schema where the message names neither
   database nor schema, and the parts before that the connector's logical name, its
   `source.name`. A message that names its table keeps its own names (a router may have
   renamed its topic). #}
named as (

    select
        unwrapped.*,
        coalesce(
            unwrapped.message_table,
            case
                when size(unwrapped.topic_parts) >= 2
                    then nullif(element_at(unwrapped.topic_parts, -1), '')
            end
        ) as source_table,
        coalesce(
            unwrapped.envelope.source.schema,
            case
                when
                    unwrapped.message_table is null
                    and coalesce(unwrapped.envelope.source.db, '') = ''
                    and size(unwrapped.topic_parts) >= 3
                    then nullif(element_at(unwrapped.topic_parts, -2), '')
            end
        ) as source_schema,
        {# The source: as the load named it, else (unless `cdc_lake_source_from_message` is
           false) the connector's logical name, the topic prefix Debezium keeps unique per
           Kafka, so two connectors' tables of one name stay two tables. #}
        coalesce(unwrapped.landed_source_name, {{ message_source_names }}) as source_name

    from unwrapped

),

classified as (

    select
        named.*,
        op_codes.op as listed_op,
        lower(named.envelope.source.connector) as db_type,
        named.envelope.source.db as database_name,
        named.source_schema as schema_name,  -- noqa: RF04
        named.source_table as table_name,  -- noqa: RF04
        {{ table_key(
            'named.envelope.source.db',
            'named.source_schema',
            'named.source_table',
        ) }} as table_key,
        {# A relational connector's row object (the MongoDB connector's strings: below). #}
        {{ debezium_row_image(
            "try_variant_get(named.envelope.before, '$', 'map<string, variant>')",
            'named.decimal_scales',
        ) }} as before_row,
        {{ debezium_row_image(
            "try_variant_get(named.envelope.after, '$', 'map<string, variant>')",
            'named.decimal_scales',
        ) }} as after_row,
        case
            when size(named.key_fields) > 0
                then {{ debezium_row_image('named.key_fields') }}
        end as kafka_key_row,
        {{ debezium_column_types('named.message.schema.fields') }} as column_types,
        {# Where the connector says where in the source log the change is: PostgreSQL lsn,
           Oracle scn, SQL Server commit LSN (then the change's LSN and serial number in
           it), MySQL binlog file number and position (and row within the event),
           MongoDB's cluster time (its second as ts_ms, and the change's ordinal in it). #}
        coalesce(
            try_cast(named.envelope.source.lsn as decimal(38, 0)),
            try_cast(named.envelope.source.scn as decimal(38, 0)),
            {{ sql_server_lsn_number('named.envelope.source.commit_lsn') }},
            try_cast(
                regexp_extract(named.envelope.source.file, '([0-9]+)$', 1) as decimal(38, 0)
            ),
            case
                when named.envelope.source.ord is not null
                    then try_cast(named.envelope.source.ts_ms as decimal(38, 0))
            end
        ) as log_position,
        coalesce(
            try_cast(named.envelope.source.pos as decimal(38, 0)),
            {{ sql_server_lsn_number('named.envelope.source.change_lsn') }}
        ) as log_offset,
        coalesce(
            try_cast(named.envelope.source.row as decimal(38, 0)),
            try_cast(named.envelope.source.ord as decimal(38, 0)),
            try_cast(named.envelope.source.event_serial_no as decimal(38, 0))
        ) as log_row,
        case
            when named.envelope.source.lsn is not null then named.envelope.source.lsn
            when named.envelope.source.scn is not null then named.envelope.source.scn
            when named.envelope.source.commit_lsn is not null
                then named.envelope.source.commit_lsn
            when named.envelope.source.change_lsn is not null
                then named.envelope.source.change_lsn
            when coalesce(named.envelope.source.file, '') != ''
                then named.envelope.source.file || ':' || named.envelope.source.pos
        end as source_log_position,
        coalesce(
            named.envelope.transaction.id,
            named.envelope.id,
            named.envelope.source.txId,
            named.envelope.source.gtid
        ) as transaction_id,
        named.envelope.op as envelope_op,
        named.envelope.ddl as ddl_text,
        upper(named.envelope.status) as envelope_status,
        named.envelope.ts_ms as envelope_ts_ms,
        named.envelope.source.ts_ms as source_ts_ms,
        lower(named.envelope.source.snapshot) as snapshot_flag,
        {# Debezium heartbeat messages carry only ts_ms (and the server name in the key). #}
        coalesce(
            named.envelope.ts_ms is not null
            and named.envelope.source is null
            and (named.envelope.before is null or is_variant_null(named.envelope.before))
            and (named.envelope.after is null or is_variant_null(named.envelope.after)),
            false
        ) as is_heartbeat_message,
        named.message._corrupt_record as corrupt_record

    from named
    left join op_codes
        on named.envelope.op = op_codes.source_op

),

{{ debezium_mongo_images('classified') }},

{# An update's column Debezium could not read (a TOASTed PostgreSQL value the update left
   unchanged: macro is_debezium_unavailable_value) is left out of the image and the update is
   partial, so the row keeps the value it holds. #}
available as (

    select
        * except (after_row, is_partial),
        case
            when listed_op = 'update' and not is_mongodb
                then map_filter(
                    after_row,
                    (column_name, column_value) -> not {{
                        is_debezium_unavailable_value('column_value')
                    }}
                )
            else after_row
        end as after_row,
        is_partial
        or coalesce(
            listed_op = 'update'
            and not is_mongodb
            and exists(
                map_values(after_row),
                column_value -> {{ is_debezium_unavailable_value('column_value') }}
            ),
            false
        ) as is_partial

    from images

),

typed as (

    select
        *,
        case
            when raw_value_text is null then 'tombstone'
            when envelope_op is not null then envelope_op
            when ddl_text is not null then 'ddl'
            when envelope_status in ('BEGIN', 'END') then envelope_status
            when is_heartbeat_message then 'heartbeat'
        end as source_op,
        case
            when raw_value_text is null then 'tombstone'
            {# PostgreSQL logical decoding messages (pg_logical_emit_message): not a row
               change and not bad input; kept (its text) and counted. #}
            when envelope_op = 'm' then 'logical_message'
            when envelope_op is not null then 'change'
            when ddl_text is not null then 'schema_change'
            when envelope_status in ('BEGIN', 'END') then 'transaction'
            when is_heartbeat_message then 'heartbeat'
        end as message_kind,
        {# Older MySQL connectors send snapshot rows as `c` with source.snapshot set. #}
        case
            when
                listed_op = 'insert'
                and snapshot_flag in ('true', 'last', 'first', 'incremental')
                then 'snapshot'
            else listed_op
        end as change_op

    from available

),

keyed as (

    select
        *,
        case when change_op = 'delete' then before_row else after_row end as key_image,
        {# The Kafka key names the key columns; else the var; else the whole row. #}
        coalesce(
            map_keys(kafka_key_row),
            {{ configured_key_columns('debezium_json_primary_keys', 'table_key') }}
        ) as declared_key_columns,
        {# A before image missing columns of the after image: those columns did not change. #}
        map_concat(
            coalesce(kafka_key_row, cast(map() as map<string, string>)),  -- noqa: LT01
            coalesce(after_row, cast(map() as map<string, string>)),  -- noqa: LT01
            before_row
        ) as previous_image

    from typed

),

identified as (

    select
        *,
        coalesce(declared_key_columns, array_sort(map_keys(key_image))) as key_columns,
        coalesce(declared_key_columns, array_sort(map_keys(previous_image)))
            as previous_key_columns,
        {# Key values missing from the image (a delete without before) come from the Kafka key. #}
        map_concat(
            coalesce(kafka_key_row, cast(map() as map<string, string>)),  -- noqa: LT01
            coalesce(key_image, cast(map() as map<string, string>))  -- noqa: LT01
        ) as key_values

    from keyed

),

validated as (

    select
        *,
        case
            when message_kind = 'change' and change_op != 'truncate'
                then {{ key_values_json('key_values', 'key_columns') }}
        end as primary_key,
        case
            when
                change_op = 'update'
                and before_row is not null
                {# A key column has a value; where the whole row is the key (no key named)
                   a NULL is one of its values. #}
                and (
                    declared_key_columns is null
                    or forall(
                        previous_key_columns, key_column -> previous_image[key_column] is not null
                    )
                )
                then {{ key_values_json('previous_image', 'previous_key_columns') }}
        end as before_key,
        case
            when raw_value_text is null then null
            when
                try_parse_json(corrupt_record) is null
                and corrupt_record is not null
                then {{ invalid_json_reason() }}
            when corrupt_record is not null
                then 'JSON not shaped like a Debezium message (a field has the wrong type)'
            when mongo_rejection_reason is not null then mongo_rejection_reason
            when message_kind is null
                then
                    'no op: not a Debezium change event, schema change, transaction marker'
                    || ' or heartbeat'
            when message_kind != 'change' then null
            when change_op is null then 'unknown op ' || source_op
            when coalesce(table_name, '') = ''
                then source_op || ' without a table (in source, the envelope schema or the topic)'
            when change_op = 'truncate' then null
            when change_op in ('insert', 'update', 'snapshot') and after_row is null
                then source_op || ' without after'
            when change_op = 'delete' and before_row is null and kafka_key_row is null
                then 'd without before and without a Kafka key: the deleted row is unknown'
            when change_op = 'update' and before_row is null and declared_key_columns is null
                then
                    'u without before on a table without a key (no Kafka key, none configured):'
                    || ' the row it changes cannot be found (PostgreSQL sends before only with'
                    || ' REPLICA IDENTITY FULL)'
            {{ when_key_has_no_value('key_columns', 'key_values') }}
        end as rejection_reason

    from identified

),

renamed as (

    select
        *,
        {# The message's hash; a tombstone (no value) is identified by its Kafka coordinates. #}
        case
            when message_hash is not null
                then {{ event_id(["'debezium_json'", 'message_hash']) }}
            else {{ event_id([
                "'debezium_json'", 'kafka_topic', 'kafka_partition', 'kafka_offset',
                'kafka_key', 'source_file', 'source_position',
            ]) }}
        end as event_id,
        message_kind as message_event_kind,
        case
            when message_kind = 'change' and change_op != 'truncate' then key_columns
        end as primary_key_columns,
        case when before_key != primary_key then before_key end as previous_primary_key,
        {# MySQL snapshot rows carry source.ts_ms 0: unknown, not 1970. A heartbeat's time
           is its ts_ms. #}
        case
            when message_kind = 'heartbeat' then {{ epoch_ms_to_timestamp('envelope_ts_ms') }}
            else {{ epoch_ms_to_timestamp('nullif(try_cast(source_ts_ms as bigint), 0)') }}
        end as source_ts,
        coalesce({{ epoch_ms_to_timestamp('envelope_ts_ms') }}, kafka_timestamp) as sync_ts,
        source_log_position as event_sequence,
        {{ ordering_key([
            'log_position',
            'log_offset',
            'log_row',
            'try_cast(source_ts_ms as bigint)',
            'try_cast(envelope_ts_ms as bigint)',
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key

    from validated

),

{{ staged_event_projection(
    'renamed',
    'debezium_json',
    absent=[
        'ddl_meta', 'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
