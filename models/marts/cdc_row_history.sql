{#- Merge on read: the compacted base and the delta written since, the newest generation of
    each version winning. A view: a run writes only the delta, whose size follows what is new;
    readers pay one anti-join against the (small) delta. -#}
with

base_history as (

    select * from {{ ref('int_cdc__row_history_base') }}

),

delta_history as (

    select * from {{ ref('int_cdc__row_history_delta') }}

),

base_generation as (

    select max(generation) as generation from base_history

),

{# Delta rows the base does not already hold (a compaction folds them in), newest first. #}
pending_delta as (

    select * except (generation_rank)
    from (
        select
            delta_history.*,
            row_number() over (
                partition by
                    delta_history.table_key, delta_history.primary_key, delta_history.event_id
                order by delta_history.generation desc
            ) as generation_rank
        from delta_history
        where delta_history.generation > (select base_generation.generation from base_generation)
    ) as ranked
    where generation_rank = 1

),

merged as (

    select base_history.*
    from base_history
    left anti join pending_delta
        on
            base_history.table_key = pending_delta.table_key
            and base_history.primary_key = pending_delta.primary_key
            and base_history.event_id = pending_delta.event_id
    where base_history.generation = (select base_generation.generation from base_generation)

    union all

    select * from pending_delta

),

final as (

    select
        ---------- keys
        table_key,
        primary_key,
        primary_key_columns,
        database_name,
        schema_name,
        table_name,
        ---------- the version
        version_number,
        row_data,
        column_types,
        op,
        is_deleted,
        is_partial,
        ---------- when it held
        valid_from,
        valid_to,
        is_current,
        valid_from_ordering_key,
        valid_to_ordering_key,
        ---------- where it came from
        source_format,
        source_ts,
        event_id,
        loaded_at

    from merged
    where is_effective

)

select * from final
