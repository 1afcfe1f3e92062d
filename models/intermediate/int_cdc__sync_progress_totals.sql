-- sqlfluff:indentation:template_blocks_indent:False
{#- The sync progress per source and topic since the first load: message counts, newest
    times and the newest change. A run adds what its new loads say to the totals held and
    writes them as a new `generation` (its post-hook drops the older one), so it reads its
    new loads and a row per topic, and cdc_sync_progress reads a row per topic, not one per
    run and topic. -#}
{%- set new_loads = loaded_since_last_run(
    ref('int_cdc__message_accounting'),
    held_column='last_loaded_at',
    parents=[ref('int_cdc__message_accounting')],
) %}
{%- if new_loads == 'false' %}

{{ writes_nothing(this) }}

{%- else %}
{#- The generations held (a metastore call), only when there is something to write. #}
{%- set held_generations = partition_generations(this) if execute and is_incremental() else [] %}

with

message_accounting as (

    select * from {{ ref('int_cdc__message_accounting') }}
    where {{ new_loads }}

),

{# The source's own events (row-changes, statements, transaction markers) and heartbeats:
   staging's first deliveries of those kinds, the rows int_cdc__change_log,
   int_cdc__schema_changes, int_cdc__transaction_markers and int_cdc__heartbeats keep, read
   in one pass rather than once per model (each read scans staging's new files). #}
source_events as (

    select * from {{ ref('int_cdc__staged_events') }}
    where
        event_kind in ('change', 'schema_change', 'transaction', 'heartbeat')
        and is_first_delivery
        and {{ new_loads }}

),

{# Their newest times, and the newest row-change by source commit time (ordering_key breaks
   ties) with its sync delay. #}
event_totals as (

    select
        source_format,
        kafka_topic,
        max(case when event_kind = 'heartbeat' then source_ts end) as last_heartbeat_at,
        max(case when event_kind != 'heartbeat' then source_ts end) as last_event_at,
        max(sync_ts) as last_sync_at,
        count_if(event_kind = 'change') as change_rows,
        max(case when event_kind = 'change' then struct(source_ts, ordering_key) end)
            as newest_change_order,
        max_by(
            struct(
                source_ts,
                sync_ts,
                (unix_micros(sync_ts) - unix_micros(source_ts)) / 1000000.0 as sync_delay_seconds
            ),
            case when event_kind = 'change' then struct(source_ts, ordering_key) end
        ) as newest_change
    from source_events
    group by source_format, kafka_topic

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

{# What the new loads add. #}
increments as (

    select
        ---------- source and topic
        messages.source_format,
        messages.kafka_topic,
        ---------- times
        event_totals.last_heartbeat_at,
        event_totals.last_event_at,
        event_totals.last_sync_at,
        messages.last_loaded_at,
        event_totals.newest_change_order,
        event_totals.newest_change,
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
        coalesce(event_totals.change_rows, 0) as change_rows,
        messages.rejected_rows

    from messages
    left join event_totals
        on
            messages.source_format = event_totals.source_format
            and messages.kafka_topic <=> event_totals.kafka_topic

),

{# The totals held: the newest generation (an older one is left only by a run stopped before
   its post-hook). None on a first or full-refresh run. #}
held_totals as (

    {%- if held_generations %}

    select * except (generation)
    from {{ this }}
    where generation = {{ held_generations | max }}

    {%- else %}

    select * from increments
    where false

    {%- endif %}

),

totals as (

    select
        source_format,
        kafka_topic,
        max(last_heartbeat_at) as last_heartbeat_at,
        max(last_event_at) as last_event_at,
        max(last_sync_at) as last_sync_at,
        max(last_loaded_at) as last_loaded_at,
        max(newest_change_order) as newest_change_order,
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

    from (
        select * from increments
        union all
        select * from held_totals
    ) as all_increments
    group by source_format, kafka_topic

),

final as (

    select
        *,
        {{ next_generation(held_generations) }} as generation

    from totals

)

{{ select_new_rows(new_loads) }}

{%- endif %}
