{#- Merge on read: the compacted base and the delta written since, the newest generation of
    each version winning. A view: a run writes only the delta, whose size follows what is new;
    readers pay one anti-join against the (small) delta, and a lookup of each version's
    column-type map by its id in the table sightings (a few rows per table): the history
    stores the id, since a map per version was a large part of the cost of writing it. -#}
with

base_history as (

    select * from {{ ref('int_cdc__row_history_base') }}

),

delta_history as (

    select * from {{ ref('int_cdc__row_history_delta') }}

),

column_type_maps as (

    select
        table_key,
        column_types_id,
        column_types

    from {{ ref('int_cdc__table_sightings') }}
    where
        sighting = 'column_types'
        and {{ in_newest_generation(ref('int_cdc__table_sightings')) }}

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

    select /*+ broadcast(column_type_maps) */
        ---------- keys
        merged.table_key,
        merged.primary_key,
        merged.primary_key_columns,
        merged.database_name,
        merged.schema_name,
        merged.table_name,
        ---------- the version
        merged.version_number,
        merged.row_data,
        column_type_maps.column_types,
        merged.op,
        merged.is_deleted,
        merged.is_partial,
        ---------- when it held
        merged.valid_from,
        merged.valid_to,
        merged.is_current,
        merged.valid_from_ordering_key,
        merged.valid_to_ordering_key,
        ---------- where it came from
        merged.source_format,
        merged.source_ts,
        merged.event_id,
        merged.loaded_at

    from merged
    left join column_type_maps
        on
            merged.table_key = column_type_maps.table_key
            and merged.column_types_id = column_type_maps.column_types_id
    where merged.is_effective

)

select * from final
