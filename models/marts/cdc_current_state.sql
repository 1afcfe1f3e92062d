with

change_log as (

    select * from {{ ref('int_cdc__change_log') }}

),

{# Every version a key takes: each change under its own key, and, for an update that changed
   the key, the end of the row under its previous key. #}
row_versions as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        primary_key,
        coalesce(after_row, before_row) as row_data,
        column_types,
        op,
        op = 'delete' as is_deleted,
        source_format,
        source_ts,
        ordering_key,
        event_id

    from change_log
    where op != 'truncate'

    union all

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        previous_primary_key as primary_key,
        before_row as row_data,
        column_types,
        op,
        true as is_deleted,
        source_format,
        source_ts,
        ordering_key,
        event_id

    from change_log
    where previous_primary_key is not null

),

latest_versions as (

    {{ deduplicate(
        'row_versions',
        partition_by='table_key, primary_key',
        order_by='ordering_key desc, event_id desc',
    ) }}

),

truncates as (

    select
        table_key,
        max(ordering_key) as truncated_at_ordering_key

    from change_log
    where op = 'truncate'
    group by table_key

),

final as (

    select
        ---------- keys
        latest_versions.table_key,
        latest_versions.primary_key,
        latest_versions.primary_key_columns,
        latest_versions.database_name,
        latest_versions.schema_name,
        latest_versions.table_name,
        ---------- the row now
        latest_versions.row_data,
        latest_versions.column_types,
        latest_versions.is_deleted
        or coalesce(
            truncates.truncated_at_ordering_key > latest_versions.ordering_key, false
        ) as is_deleted,
        ---------- its last change
        case
            when truncates.truncated_at_ordering_key > latest_versions.ordering_key
                then 'truncate'
            else latest_versions.op
        end as last_op,
        latest_versions.source_ts as last_source_ts,
        latest_versions.source_format as last_source_format,
        latest_versions.event_id as last_event_id,
        latest_versions.ordering_key as last_ordering_key

    from latest_versions
    left join truncates
        on latest_versions.table_key = truncates.table_key

)

select * from final
