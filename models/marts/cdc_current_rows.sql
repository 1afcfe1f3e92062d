with

current_state as (

    select * from {{ ref('cdc_current_state') }}

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
        ---------- its last change
        last_op,
        last_source_ts,
        last_source_format,
        last_event_id,
        last_ordering_key,
        version_count,
        last_loaded_at

    from current_state
    where not is_deleted

)

select * from final
