{#- The latest version of every row: a view of the history's current versions (whose base is
    partitioned by is_current, so this reads the current rows only). -#}
with

row_history as (

    select * from {{ ref('cdc_row_history') }}

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
        loaded_at as last_loaded_at

    from row_history
    where is_current

)

select * from final
