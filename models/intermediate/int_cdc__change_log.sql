with

staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

{# Kafka is at-least-once and files get re-exported: one row per event_id, the first loaded,
   also when the copy arrives runs later (staging marks it: is_first_delivery). #}
deduplicated as (

    select * from staged_events
    where {{ is_logged_change() }}

),

final as (

    select
        ---------- identity
        event_id,
        source_format,
        source_op,
        ---------- where the row lives
        db_type,
        database_name,
        schema_name,
        table_name,
        table_key,
        ---------- the change
        op,
        before_row,
        after_row,
        is_partial,
        unset_columns,
        primary_key_columns,
        primary_key,
        previous_primary_key,
        column_types,
        ---------- times and order
        source_ts,
        sync_ts,
        event_sequence,
        source_log_position,
        ordering_key,
        transaction_id,
        ---------- lineage
        kafka_topic,
        kafka_partition,
        kafka_offset,
        source_file,
        source_position,
        row_index,
        loaded_at

    from deduplicated

)

select * from final
