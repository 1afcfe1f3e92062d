{% macro debezium_mongo_images(relation) -%}
{# The MongoDB connector sends documents as Extended JSON strings: `after` (and `before`
   with pre-images); an update as `updateDescription` (2.x; `after` too in the
   update_full capture modes) or as `patch` and `filter` (1.x); the key as the Kafka key
   `id`, the `_id` as Extended JSON. One pass of the shell-JSON UDF per string (NULL for
   every other connector's rows). #}
mongo_documents as (

    select
        *,
        coalesce(db_type = 'mongodb', false) as is_mongodb,
        mongo_shell_to_json_result(
            case when db_type = 'mongodb' then try_variant_get(envelope.after, '$', 'string') end
        ) as mongo_after,
        mongo_shell_to_json_result(
            case when db_type = 'mongodb' then try_variant_get(envelope.before, '$', 'string') end
        ) as mongo_before,
        mongo_shell_to_json_result(case when db_type = 'mongodb' then envelope.patch end)
            as mongo_patch,
        mongo_shell_to_json_result(case when db_type = 'mongodb' then envelope.`filter` end)
            as mongo_filter,
        mongo_shell_to_json_result(
            case when db_type = 'mongodb' then envelope.updateDescription.updatedFields end
        ) as mongo_updated,
        mongo_id_text_result(
            case
                when db_type = 'mongodb' then '{"_id": ' || cast(key_fields['id'] as string) || '}'
            end
        ) as mongo_key_id

    from {{ relation }}

),

mongo_fields as (

    select
        *,
        from_json(mongo_after['value'], 'map<string, string>') as after_fields,  -- noqa: LT01
        from_json(mongo_before['value'], 'map<string, string>') as before_fields,  -- noqa: LT01
        from_json(mongo_patch['value'], 'map<string, string>') as patch_fields,  -- noqa: LT01
        from_json(mongo_updated['value'], 'map<string, string>') as updated_fields,  -- noqa: LT01
        {# The key's `_id`, else the document's (after, before, or a 1.x filter). #}
        coalesce(
            mongo_key_id['value'],
            mongo_id_text_result(
                coalesce(mongo_after['value'], mongo_before['value'], mongo_filter['value'])
            )['value']
        ) as document_id

    from mongo_documents

),

{# A 1.x patch is an update document (`$set`, `$unset`) or the whole new document. #}
mongo_updates as (

    select
        *,
        exists(map_keys(patch_fields), field_name -> field_name like '$%') as is_update_document,
        filter(
            map_keys(patch_fields), field_name -> field_name not in ('$set', '$unset', '$v')
        ) as unsupported_operators,
        coalesce(
            from_json(patch_fields['$set'], 'map<string, string>'),  -- noqa: LT01
            updated_fields
        ) as set_fields,
        concat(
            coalesce(
                map_keys(from_json(patch_fields['$unset'], 'map<string, string>')),  -- noqa: LT01
                cast(array() as array<string>)  -- noqa: LT01
            ),
            coalesce(envelope.updateDescription.removedFields, cast(array() as array<string>)),
            coalesce(
                transform(envelope.updateDescription.truncatedArrays, truncated -> truncated.field),
                cast(array() as array<string>)  -- noqa: LT01
            )
        ) as unset_paths

    from mongo_fields

),

{# Full images: every top-level field (strings unquoted, anything else its Extended JSON),
   `_document` (the whole document) and `_id` as plain text (the key). A partial update: the
   set paths; unset: the removed paths, the top-level field of every dotted path, arrays
   truncated (their new length is all the message says), and `_document`, so the folded
   state never shows a stale value. As `stg_huawei_drs__mongo` stages DRS DDS documents. #}
mongo_images as (

    select
        * except (before_row, after_row, kafka_key_row),
        coalesce(
            is_mongodb
            and listed_op = 'update'
            and mongo_after['value'] is null
            and (is_update_document or envelope.updateDescription is not null),
            false
        ) as is_partial,
        case
            when not is_mongodb then before_row
            when before_fields is not null
                then map_concat(
                    before_fields, map('_document', mongo_before['value'], '_id', document_id)
                )
        end as before_row,
        case
            when not is_mongodb then after_row
            when mongo_after['value'] is not null
                then map_concat(
                    after_fields, map('_document', mongo_after['value'], '_id', document_id)
                )
            when listed_op = 'update' and patch_fields is not null and not is_update_document
                then map_concat(
                    patch_fields, map('_document', mongo_patch['value'], '_id', document_id)
                )
            when listed_op = 'update'
                then coalesce(set_fields, cast(map() as map<string, string>))  -- noqa: LT01
        end as after_row,
        case
            when not is_mongodb then kafka_key_row
            when document_id is not null then map('_id', document_id)
        end as kafka_key_row,
        case
            when is_mongodb then coalesce(
                'after is not MongoDB Extended JSON: ' || mongo_after['error'],
                'before is not MongoDB Extended JSON: ' || mongo_before['error'],
                'patch is not MongoDB Extended JSON: ' || mongo_patch['error'],
                'filter is not MongoDB Extended JSON: ' || mongo_filter['error'],
                'updateDescription.updatedFields is not MongoDB Extended JSON: '
                || mongo_updated['error'],
                case
                    when mongo_after['value'] is not null and after_fields is null
                        then 'after is not a document'
                end,
                case
                    when is_update_document and size(unsupported_operators) > 0
                        then
                            'patch with operators other than $set and $unset: '
                            || array_join(unsupported_operators, ', ')
                end
            )
        end as mongo_rejection_reason

    from mongo_updates

),

{# The partial update's unset columns (see mongo_images). #}
images as (

    select
        *,
        case
            when is_partial
                then array_distinct(concat(
                    array('_document'),
                    unset_paths,
                    transform(
                        filter(
                            concat(
                                coalesce(map_keys(set_fields), cast(array() as array<string>)),
                                unset_paths
                            ),
                            field_path -> field_path like '%.%'
                        ),
                        field_path -> substring_index(field_path, '.', 1)
                    )
                ))
            else cast(array() as array<string>)
        end as unset_columns

    from mongo_images

)
{%- endmacro %}
