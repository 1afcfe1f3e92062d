with

row_history as (

    select * from {{ ref('cdc_row_history') }}

),

{# The partitions of the history holding versions loaded since this model's last run: only
   those are rebuilt (insert_overwrite), from the history's current versions. #}
touched_partitions as (

    {{ touched_key_partitions('row_history', held_column='last_loaded_at') }}

),

key_histories as (

    select
        row_history.*,
        max(row_history.loaded_at) over (
            partition by row_history.table_key, row_history.primary_key
        ) as last_loaded_at

    from row_history
    left semi join touched_partitions
        on
            row_history.table_key = touched_partitions.table_key
            and row_history.key_bucket = touched_partitions.key_bucket

),

final as (

    select
        ---------- keys
        table_key,
        primary_key,
        primary_key_columns,
        database_name,
        schema_name,
        table_name,
        ---------- the row now
        row_data,
        column_types,
        is_deleted,
        ---------- its last change
        op as last_op,
        source_ts as last_source_ts,
        source_format as last_source_format,
        event_id as last_event_id,
        valid_from_ordering_key as last_ordering_key,
        version_number as version_count,
        last_loaded_at,
        ---------- partition
        key_bucket

    from key_histories
    where is_current

)

select * from final
