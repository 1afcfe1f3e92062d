with

staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

selected_events as (

    select * from staged_events
    where event_kind = 'transaction' and {{ loaded_since_last_run(ref('int_cdc__staged_events')) }}

),

first_deliveries as (

    {{ first_deliveries('selected_events', order_by='loaded_at, source_position') }}

),

final as (

    select
        event_id,
        source_format,
        lower(source_op) as marker,
        transaction_id,
        source_ts,
        sync_ts,
        event_sequence,
        source_log_position,
        ordering_key,
        ---------- lineage
        kafka_topic,
        kafka_partition,
        kafka_offset,
        source_file,
        source_position,
        loaded_at

    from first_deliveries

)

select * from final
