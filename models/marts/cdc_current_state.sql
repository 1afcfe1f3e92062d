with

change_log as (

    select * from {{ ref('int_cdc__change_log') }}

),

{# Every version a key takes: each change under its own key, and, for an update that changed
   the key, the end of the row under its previous key. #}
row_versions as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        primary_key,
        before_row,
        after_row,
        coalesce(after_row, before_row) as row_data,
        is_partial,
        unset_columns,
        column_types,
        op,
        op = 'delete' as is_deleted,
        source_format,
        source_ts,
        ordering_key,
        event_id

    from change_log
    where op != 'truncate'

    union all

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        previous_primary_key as primary_key,
        before_row,
        cast(null as map<string, string>) as after_row,  -- noqa: LT01
        before_row as row_data,
        false as is_partial,
        unset_columns,
        column_types,
        op,
        true as is_deleted,
        source_format,
        source_ts,
        ordering_key,
        event_id

    from change_log
    where previous_primary_key is not null

),

ranked_versions as (

    select
        *,
        row_number() over (
            partition by table_key, primary_key
            order by ordering_key desc, event_id desc
        ) as recency,
        max(case when not is_partial then ordering_key end) over (
            partition by table_key, primary_key
        ) as last_full_ordering_key

    from row_versions

),

latest_versions as (

    select * from ranked_versions
    where recency = 1

),

{# Keys whose latest change is partial ($set/$unset, SharePlex updates, column deletes): fold
   every change since the last full image, in order. A partial change overlays its before
   image (what the row had just before it) and its after image on the row so far, then drops
   its unset columns; a full image replaces the row; a delete empties it. #}
partial_versions as (

    select ranked_versions.*

    from ranked_versions
    inner join latest_versions
        on
            ranked_versions.table_key = latest_versions.table_key
            and ranked_versions.primary_key = latest_versions.primary_key
    where
        latest_versions.is_partial
        and (
            ranked_versions.last_full_ordering_key is null
            or ranked_versions.ordering_key >= ranked_versions.last_full_ordering_key
        )

),

folded_rows as (

    select
        table_key,
        primary_key,
        aggregate(
            array_sort(
                collect_list(struct(
                    ordering_key,
                    event_id,
                    is_partial,
                    is_deleted,
                    before_row,
                    after_row,
                    unset_columns
                )),
                (left_version, right_version) -> case
                    when left_version.ordering_key < right_version.ordering_key then -1
                    when left_version.ordering_key > right_version.ordering_key then 1
                    when left_version.event_id < right_version.event_id then -1
                    when left_version.event_id > right_version.event_id then 1
                    else 0
                end
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
                {# a delete ends the row: what follows it starts afresh #}
                when version.is_deleted then cast(map() as map<string, string>)  -- noqa: LT01
                else coalesce(version.after_row, version.before_row)
            end
        ) as folded_row

    from partial_versions
    group by table_key, primary_key

),

truncates as (

    select
        table_key,
        max(ordering_key) as truncated_at_ordering_key

    from change_log
    where op = 'truncate'
    group by table_key

),

final as (

    select
        ---------- keys
        latest_versions.table_key,
        latest_versions.primary_key,
        latest_versions.primary_key_columns,
        latest_versions.database_name,
        latest_versions.schema_name,
        latest_versions.table_name,
        ---------- the row now
        coalesce(folded_rows.folded_row, latest_versions.row_data) as row_data,
        latest_versions.column_types,
        latest_versions.is_deleted
        or coalesce(
            truncates.truncated_at_ordering_key > latest_versions.ordering_key, false
        ) as is_deleted,
        ---------- its last change
        case
            when truncates.truncated_at_ordering_key > latest_versions.ordering_key
                then 'truncate'
            else latest_versions.op
        end as last_op,
        latest_versions.source_ts as last_source_ts,
        latest_versions.source_format as last_source_format,
        latest_versions.event_id as last_event_id,
        latest_versions.ordering_key as last_ordering_key

    from latest_versions
    left join folded_rows
        on
            latest_versions.table_key = folded_rows.table_key
            and latest_versions.primary_key = folded_rows.primary_key
    left join truncates
        on latest_versions.table_key = truncates.table_key

)

select * from final
