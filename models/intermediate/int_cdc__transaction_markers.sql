with

staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

{# The first delivery of each event (staging marks it, also against earlier runs). #}
first_deliveries as (

    select * from staged_events
    where
        event_kind = 'transaction'
        and is_first_delivery

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
