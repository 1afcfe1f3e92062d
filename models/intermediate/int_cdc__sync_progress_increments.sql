{#- The sync progress of the loads since the last run, per source and topic: counts, newest
    times and the newest change of those loads only. cdc_sync_progress adds the increments
    up, so a run reads what is new, not the history. -#}
{%- set new_loads = loaded_since_last_run(
    ref('int_cdc__message_accounting'), held_column='last_loaded_at'
) -%}

with

message_accounting as (

    select * from {{ ref('int_cdc__message_accounting') }}
    where {{ new_loads }}

),

change_log as (

    select * from {{ ref('int_cdc__change_log') }}
    where {{ new_loads }}

),

heartbeats as (

    select * from {{ ref('int_cdc__heartbeats') }}
    where {{ new_loads }}

),

schema_changes as (

    select * from {{ ref('int_cdc__schema_changes') }}
    where {{ new_loads }}

),

transaction_markers as (

    select * from {{ ref('int_cdc__transaction_markers') }}
    where {{ new_loads }}

),

{# One row per source and topic: every landed message, whatever became of it. #}
messages as (

    select
        source_format,
        kafka_topic,
        max(loaded_at) as last_loaded_at,
        count(*) as messages,
        count_if(outcome = 'change') as change_messages,
        count_if(outcome = 'heartbeat') as heartbeat_messages,
        count_if(outcome = 'schema_change') as schema_change_messages,
        count_if(outcome = 'transaction') as transaction_messages,
        count_if(outcome = 'tombstone') as tombstone_messages,
        count_if(outcome = 'logical_message') as logical_message_messages,
        count_if(outcome = 'rejected') as rejected_messages,
        count_if(outcome = 'duplicate') as duplicate_messages,
        count_if(outcome = 'unaccounted') as unaccounted_messages,
        sum(rejected_rows) as rejected_rows
    from message_accounting
    group by source_format, kafka_topic

),

{# The source's own events (row-changes, statements, transaction markers) and heartbeats. #}
source_events as (

    select
        source_format,
        kafka_topic,
        source_ts as event_at,
        cast(null as timestamp) as heartbeat_at,
        sync_ts
    from change_log
    union all
    select
        source_format,
        kafka_topic,
        source_ts as event_at,
        cast(null as timestamp) as heartbeat_at,
        sync_ts
    from schema_changes
    union all
    select
        source_format,
        kafka_topic,
        source_ts as event_at,
        cast(null as timestamp) as heartbeat_at,
        sync_ts
    from transaction_markers
    union all
    select
        source_format,
        kafka_topic,
        cast(null as timestamp) as event_at,
        heartbeat_at,
        sync_ts
    from heartbeats

),

event_times as (

    select
        source_format,
        kafka_topic,
        max(heartbeat_at) as last_heartbeat_at,
        max(event_at) as last_event_at,
        max(sync_ts) as last_sync_at
    from source_events
    group by source_format, kafka_topic

),

{# The newest row-change by source commit time (ordering_key breaks ties) and its sync delay. #}
changes as (

    select
        source_format,
        kafka_topic,
        count(*) as change_rows,
        max(struct(source_ts, ordering_key)) as newest_change_order,
        max_by(
            struct(
                source_ts,
                sync_ts,
                (unix_micros(sync_ts) - unix_micros(source_ts)) / 1000000.0 as sync_delay_seconds
            ),
            struct(source_ts, ordering_key)
        ) as newest_change
    from change_log
    group by source_format, kafka_topic

),

final as (

    select
        ---------- source and topic
        messages.source_format,
        messages.kafka_topic,
        ---------- times
        event_times.last_heartbeat_at,
        event_times.last_event_at,
        event_times.last_sync_at,
        messages.last_loaded_at,
        changes.newest_change_order,
        changes.newest_change,
        ---------- messages by outcome
        messages.messages,
        messages.change_messages,
        messages.heartbeat_messages,
        messages.schema_change_messages,
        messages.transaction_messages,
        messages.tombstone_messages,
        messages.logical_message_messages,
        messages.rejected_messages,
        messages.duplicate_messages,
        messages.unaccounted_messages,
        coalesce(changes.change_rows, 0) as change_rows,
        messages.rejected_rows

    from messages
    left join event_times
        on
            messages.source_format = event_times.source_format
            and messages.kafka_topic <=> event_times.kafka_topic
    left join changes
        on
            messages.source_format = changes.source_format
            and messages.kafka_topic <=> changes.kafka_topic

)

select * from final
