with

row_versions as (

    select * from {{ ref('int_cdc__row_versions') }}

),

{# Only the partitions new versions touched are rebuilt (insert_overwrite), each from every
   version it holds, so a late or out-of-order change re-orders its key's whole history. #}
touched_partitions as (

    {{ touched_key_partitions('row_versions') }}

),

key_versions as (

    select
        row_versions.table_key,
        row_versions.database_name,
        row_versions.schema_name,
        row_versions.table_name,
        row_versions.primary_key_columns,
        row_versions.primary_key,
        row_versions.op,
        row_versions.is_deleted,
        row_versions.before_row,
        row_versions.after_row,
        row_versions.is_partial,
        row_versions.unset_columns,
        row_versions.column_types,
        row_versions.source_format,
        row_versions.source_ts,
        row_versions.sync_ts,
        row_versions.ordering_key,
        row_versions.event_id,
        row_versions.loaded_at,
        row_versions.key_bucket

    from row_versions
    left semi join touched_partitions
        on
            row_versions.table_key = touched_partitions.table_key
            and row_versions.key_bucket = touched_partitions.key_bucket

),

table_truncates as (

    select * from row_versions
    where
        key_bucket = -1
        and table_key in (select touched_partitions.table_key from touched_partitions)

),

row_keys as (

    select
        table_key,
        key_bucket,
        primary_key,
        min(ordering_key) as first_ordering_key

    from key_versions
    group by table_key, key_bucket, primary_key

),

{# A truncate ends every row of its table that exists at that point. #}
truncate_versions as (

    select
        table_truncates.table_key,
        table_truncates.database_name,
        table_truncates.schema_name,
        table_truncates.table_name,
        table_truncates.primary_key_columns,
        row_keys.primary_key,
        table_truncates.op,
        table_truncates.is_deleted,
        table_truncates.before_row,
        table_truncates.after_row,
        table_truncates.is_partial,
        table_truncates.unset_columns,
        table_truncates.column_types,
        table_truncates.source_format,
        table_truncates.source_ts,
        table_truncates.sync_ts,
        table_truncates.ordering_key,
        table_truncates.event_id,
        table_truncates.loaded_at,
        row_keys.key_bucket

    from table_truncates
    inner join row_keys
        on
            table_truncates.table_key = row_keys.table_key
            and table_truncates.ordering_key > row_keys.first_ordering_key

),

all_versions as (

    select * from key_versions

    union all

    select * from truncate_versions

),

{# A truncate of a row already deleted (or truncated) changes nothing: it is no version. #}
effective_versions as (

    select * except (previous_is_deleted)
    from (
        select
            *,
            lag(is_deleted) over (
                partition by table_key, primary_key order by ordering_key, event_id
            ) as previous_is_deleted
        from all_versions
    ) as sequenced
    where not (op = 'truncate' and coalesce(previous_is_deleted, true))

),

{# A segment starts at each full image, delete or truncate; partial changes fold onto it. #}
segmented_versions as (

    select
        *,
        sum(case when is_partial then 0 else 1 end) over (
            partition by table_key, primary_key
            order by ordering_key, event_id
            rows between unbounded preceding and current row
        ) as segment_number

    from effective_versions

),

{# A partial change overlays its before image (what the row had just before it) and its after
   image on the row so far, then drops its unset columns; a full image replaces the row; a
   delete or truncate empties it for what follows. #}
folded_versions as (

    select
        *,
        case
            when is_partial
                then aggregate(
                    collect_list(struct(
                        ordering_key,
                        event_id,
                        is_partial,
                        is_deleted,
                        before_row,
                        after_row,
                        unset_columns
                    )) over (
                        partition by table_key, primary_key, segment_number
                        order by ordering_key, event_id
                        rows between unbounded preceding and current row
                    ),
                    cast(map() as map<string, string>),  -- noqa: LT01
                    (row_so_far, version) -> case
                        when version.is_partial
                            then map_filter(
                                map_concat(
                                    row_so_far,
                                    coalesce(version.before_row, row_so_far),
                                    coalesce(version.after_row, row_so_far)
                                ),
                                (column_name, column_value) -> not array_contains(
                                    coalesce(version.unset_columns, cast(array() as array<string>)),
                                    column_name
                                )
                            )
                        when version.is_deleted
                            then cast(map() as map<string, string>)  -- noqa: LT01
                        else coalesce(version.after_row, version.before_row)
                    end
                )
            else coalesce(after_row, before_row)
        end as folded_row

    from segmented_versions

),

{# A truncate, or a delete that sent no before image, shows the row as it found it. #}
filled_versions as (

    select
        *,
        coalesce(
            folded_row,
            last_value(folded_row, true) over (
                partition by table_key, primary_key
                order by ordering_key, event_id
                rows between unbounded preceding and 1 preceding
            )
        ) as row_data,
        coalesce(source_ts, sync_ts, loaded_at) as valid_from

    from folded_versions

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
        row_number() over key_order as version_number,
        row_data,
        column_types,
        op,
        is_deleted,
        is_partial,
        ---------- when it held
        valid_from,
        lead(valid_from) over key_order as valid_to,
        lead(event_id) over key_order is null as is_current,
        ordering_key as valid_from_ordering_key,
        lead(ordering_key) over key_order as valid_to_ordering_key,
        ---------- where it came from
        source_format,
        source_ts,
        event_id,
        loaded_at,
        ---------- partition
        key_bucket

    from filled_versions
    window key_order as (partition by table_key, primary_key order by ordering_key, event_id)

)

select * from final
