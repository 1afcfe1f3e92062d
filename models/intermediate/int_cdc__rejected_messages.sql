with

staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

final as (

    select
        event_id,
        source_format,
        rejection_reason,
        raw_value,
        ---------- what could be read before the message was rejected
        source_op,
        table_key,
        ---------- lineage
        kafka_topic,
        kafka_partition,
        kafka_offset,
        source_file,
        source_position,
        row_index,
        loaded_at

    from staged_events
    where event_kind = 'rejected'

)

select * from final
