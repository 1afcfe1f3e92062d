{{ config(enabled=is_format_enabled('drs_mongo')) }}
{%- set landing = source('huawei_drs', 'drs_mongo') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

record_types as (

    select * from {{ ref('huawei_drs__mongo_record_types') }}

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
            '{{ huawei_drs_mongo_message_schema() | replace("\n", " ") }}',
            map('columnNameOfCorruptRecord', '_corrupt_record')
        ) as message

    from raw_messages

),

{# One pass of the shell-JSON UDF over `value` and one over `where`: strict JSON or the reason. #}
converted as (

    select
        parsed.*,
        parsed.message['recordType'] as source_op,
        record_types.op as change_op,
        record_types.is_partial as is_update_document,
        mongo_shell_to_json_result(parsed.message['value']) as value_result,
        mongo_shell_to_json_result(parsed.message['where']) as where_result,
        regexp_extract(parsed.message['clusterTime'], '^([0-9]{1,10}):([0-9]{1,10})$', 1)
            as cluster_seconds,
        regexp_extract(parsed.message['clusterTime'], '^([0-9]{1,10}):([0-9]{1,10})$', 2)
            as cluster_increment

    from parsed
    left join record_types
        on
            parsed.message['op'] = record_types.source_op
            and parsed.message['recordType'] = record_types.record_type

),

{# Top-level fields as column -> text: strings unquoted, anything else its strict JSON. #}
documents as (

    select
        *,
        value_result['value'] as value_json,
        where_result['value'] as where_json,
        from_json(value_result['value'], 'map<string, string>') as value_fields,  -- noqa: LT01
        from_json(where_result['value'], 'map<string, string>') as where_fields,  -- noqa: LT01
        mongo_id_text_result(coalesce(where_result['value'], value_result['value']))
            as id_result

    from converted

),

{# An update's value is an update document: `$set` (path -> new value), `$unset` (paths). #}
update_documents as (

    select
        *,
        filter(
            map_keys(value_fields), field_name -> field_name not in ('$set', '$unset', '$v')
        ) as unsupported_operators,
        from_json(value_fields['$set'], 'map<string, string>') as set_fields,  -- noqa: LT01
        map_keys(
            from_json(value_fields['$unset'], 'map<string, string>')  -- noqa: LT01
        ) as unset_paths

    from documents

),

validated as (

    select
        *,
        {{ table_key("message['db']", 'cast(null as string)', "message['coll']") }} as table_key,
        case
            when raw_value_text is null then 'NULL message value: DRS sends no tombstones'
            when
                try_parse_json(message['_corrupt_record']) is null
                and message['_corrupt_record'] is not null
                then {{ invalid_json_reason() }}
            when message['_corrupt_record'] is not null
                then 'JSON not shaped like a DRS DDS message (a field has the wrong type)'
            when message['recordType'] is null then 'no recordType: not a DRS DDS message'
            when change_op is null
                then
                    'unknown recordType ' || message['recordType']
                    || ' with op ' || coalesce(message['op'], 'NULL')
            when coalesce(message['coll'], '') = '' then source_op || ' without coll'
            when cluster_seconds = ''
                then
                    'clusterTime is not seconds:increment: '
                    || coalesce(left(message['clusterTime'], 40), 'NULL')
            when message['value'] is null then source_op || ' without value'
            when value_result['error'] is not null
                then 'value is not MongoDB shell JSON: ' || value_result['error']
            when value_fields is null then 'value is not a document'
            when source_op in ('update', 'replace') and message['where'] is null
                then source_op || ' without where'
            when where_result['error'] is not null
                then 'where is not MongoDB shell JSON: ' || where_result['error']
            when message['where'] is not null and where_fields is null
                then 'where is not a document'
            when id_result['error'] is not null
                then source_op || ' without _id: ' || id_result['error']
            when is_update_document and size(unsupported_operators) > 0
                then
                    'update with operators other than $set and $unset: '
                    || array_join(unsupported_operators, ', ')
            when is_update_document and set_fields is null and unset_paths is null
                then 'update without $set or $unset'
        end as rejection_reason

    from update_documents

),

{# Full images (insert, replace): every top-level field plus `_document`, the whole document as
   strict JSON. Updates: the `$set` paths; `$unset` paths, the top-level field of every dotted
   path, and `_document` are unset, so the folded state never shows a stale value. #}
images as (

    select
        *,
        case
            when change_op = 'delete' then value_fields
            when change_op = 'update' then where_fields
        end as before_image,
        case
            when is_update_document
                then coalesce(set_fields, cast(map() as map<string, string>))  -- noqa: LT01
            when change_op != 'delete'
                then map_concat(value_fields, map('_document', value_json))
        end as after_image,
        case
            when is_update_document
                then array_distinct(concat(
                    array('_document'),
                    coalesce(unset_paths, cast(array() as array<string>)),
                    transform(
                        filter(
                            concat(
                                coalesce(map_keys(set_fields), cast(array() as array<string>)),
                                coalesce(unset_paths, cast(array() as array<string>))
                            ),
                            field_path -> field_path like '%.%'
                        ),
                        field_path -> substring_index(field_path, '.', 1)
                    )
                ))
            else cast(array() as array<string>)
        end as unset_paths_and_stale

    from validated

),

renamed as (

    select
        *,
        case
            when rejection_reason is null
                then {{ event_id([
                    "'drs_mongo'",
                    'table_key',
                    "message['clusterTime']",
                    "message['id']",
                    "id_result['value']",
                ]) }}
            else {{ event_id(["'drs_mongo'", 'message_hash']) }}
        end as event_id,
        'change' as message_event_kind,
        'mongodb' as db_type,
        message['db'] as database_name,
        message['coll'] as table_name,  -- noqa: RF04
        {# A rejected message keeps its text (raw_value), not half-read images. #}
        case when rejection_reason is null then before_image end as before_row,
        case when rejection_reason is null then after_image end as after_row,
        coalesce(rejection_reason is null and is_update_document, false) as is_partial,
        case
            when rejection_reason is null then unset_paths_and_stale
            else cast(array() as array<string>)
        end as unset_columns,
        case when rejection_reason is null then array('_id') end as primary_key_columns,
        case when rejection_reason is null then to_json(array(id_result['value'])) end
            as primary_key,
        {{ epoch_ms_to_timestamp("message['es']") }} as source_ts,
        {{ epoch_ms_to_timestamp("message['ts']") }} as sync_ts,
        message['id'] as event_sequence,
        message['clusterTime'] as source_log_position,
        {{ ordering_key([
            "try_cast(nullif(cluster_seconds, '') as bigint)",
            "try_cast(nullif(cluster_increment, '') as bigint)",
            'kafka_offset',
            'unix_micros(loaded_at)',
            'source_position',
        ]) }} as ordering_key

    from images

),

{{ staged_event_projection(
    'renamed',
    'drs_mongo',
    absent=[
        'schema_name', 'previous_primary_key', 'column_types', 'transaction_id', 'ddl_text',
        'ddl_meta', 'ddl_summary', 'ddl_meta_error', 'row_index',
    ],
) }}

{{ select_new_rows(new_loads) }}
