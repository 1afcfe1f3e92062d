{#- Progress per source and topic: the totals the runs kept (a row per topic), lag measured
    when read. -#}
with

totals as (

    select * from {{ ref('int_cdc__sync_progress_totals') }}
    where generation = (
        select max(held.generation) from {{ ref('int_cdc__sync_progress_totals') }} as held
    )

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
