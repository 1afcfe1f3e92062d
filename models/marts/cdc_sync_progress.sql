{#- Progress per source and topic: the increments of every run added up (small: a row per
    run and topic), lag measured when read. -#}
with

increments as (

    select * from {{ ref('int_cdc__sync_progress_increments') }}

),

totals as (

    select
        source_format,
        kafka_topic,
        max(last_heartbeat_at) as last_heartbeat_at,
        max(last_event_at) as last_event_at,
        max(last_sync_at) as last_sync_at,
        max(last_loaded_at) as last_loaded_at,
        max_by(newest_change, newest_change_order) as newest_change,
        sum(messages) as messages,
        sum(change_messages) as change_messages,
        sum(heartbeat_messages) as heartbeat_messages,
        sum(schema_change_messages) as schema_change_messages,
        sum(transaction_messages) as transaction_messages,
        sum(tombstone_messages) as tombstone_messages,
        sum(logical_message_messages) as logical_message_messages,
        sum(rejected_messages) as rejected_messages,
        sum(duplicate_messages) as duplicate_messages,
        sum(unaccounted_messages) as unaccounted_messages,
        sum(change_rows) as change_rows,
        sum(rejected_rows) as rejected_rows

    from increments
    group by source_format, kafka_topic

),

final as (

    select
        ---------- source and topic
        source_format,
        kafka_topic,
        ---------- how far the sync has come
        last_heartbeat_at,
        last_event_at,
        last_sync_at,
        last_loaded_at,
        greatest(last_heartbeat_at, last_event_at) as progress_at,
        ---------- lag
        current_timestamp() as built_at,
        (
            unix_micros(current_timestamp())
            - unix_micros(greatest(last_heartbeat_at, last_event_at))
        ) / 1000000.0 as lag_seconds,
        newest_change.source_ts as newest_change_source_ts,
        newest_change.sync_delay_seconds as newest_change_sync_delay_seconds,
        ---------- messages by outcome
        messages,
        change_messages,
        heartbeat_messages,
        schema_change_messages,
        transaction_messages,
        tombstone_messages,
        logical_message_messages,
        rejected_messages,
        duplicate_messages,
        unaccounted_messages,
        change_rows,
        rejected_rows

    from totals

)

select * from final
