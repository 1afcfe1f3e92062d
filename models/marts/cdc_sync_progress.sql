{#- Progress per source and topic: the totals the runs kept (a row per topic), lag measured
    when read, and the messages Kafka loads lost to retention (from their ledger). -#}
with

held_totals as (

    select * from {{ ref('int_cdc__sync_progress_totals') }}
    where generation = (
        select max(held.generation) from {{ ref('int_cdc__sync_progress_totals') }} as held
    )

),

kafka_offsets as (

    select * from {{ source('cdc_lake_loader', 'kafka_offsets') }}
    where committed_at is not null

),

lost_messages as (

    select
        source_format,
        topic as kafka_topic,
        sum(lost_messages) as lost_messages
    from kafka_offsets
    group by source_format, topic
    having sum(lost_messages) > 0

),

{# A topic whose every message was lost has a row too. #}
totals as (

    select
        held_totals.*,
        coalesce(held_totals.source_format, lost_messages.source_format) as progress_format,
        coalesce(held_totals.kafka_topic, lost_messages.kafka_topic) as progress_topic,
        coalesce(lost_messages.lost_messages, 0) as lost_messages
    from held_totals
    full outer join lost_messages
        on
            held_totals.source_format = lost_messages.source_format
            and held_totals.kafka_topic = lost_messages.kafka_topic

),

final as (

    select
        ---------- source and topic
        progress_format as source_format,
        progress_topic as kafka_topic,
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
        lost_messages,
        change_rows,
        rejected_rows

    from totals

)

select * from final
