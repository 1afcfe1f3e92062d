{%- set new_loads = loaded_since_last_run(
    staged_loads(is_logged_statement()), parents=staged_models()
) %}

with

staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

{# DDL events, and truncates too: a truncate changes rows (change log) and is a statement
   (here). The first delivery of each (staging marks it, also against earlier runs). #}
first_deliveries as (

    select *
    from staged_events
    where {{ is_logged_statement() }} and {{ new_loads }}

),

final as (

    select
        event_id,
        source_format,
        lower(source_op) as ddl_op,
        db_type,
        database_name,
        schema_name,
        table_name,
        table_key,
        ddl_text,
        ddl_meta,
        ddl_summary,
        ddl_meta_error,
        source_ts,
        sync_ts,
        event_sequence,
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

{{ select_new_rows(new_loads) }}
