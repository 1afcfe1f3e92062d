with

staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

{# The first delivery of each event (staging marks it, also against earlier runs). #}
first_deliveries as (

    select * from staged_events
    where
        event_kind = 'heartbeat'
        and is_first_delivery

),

final as (

    select
        event_id,
        source_format,
        source_ts as heartbeat_at,
        sync_ts,
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
