{% macro fold_row_versions(
    key_versions, table_truncates, has_truncates=true, has_partial_changes=true
) -%}

{%- set no_writes = (
    'cast(array() as array<struct<write_order: int, column_name: string, '
    ~ 'column_value: string, is_unset: boolean>>)'
) %}

    {%- if has_truncates %}

fold_row_keys as (

    select
        table_key,
        primary_key,
        min(ordering_key) as first_ordering_key

    from {{ key_versions }}
    group by table_key, primary_key

),

{# A truncate ends every row of its table that exists at that point. #}
fold_truncate_versions as (

    select
        table_truncates.table_key,
        table_truncates.database_name,
        table_truncates.schema_name,
        table_truncates.table_name,
        table_truncates.primary_key_columns,
        fold_row_keys.primary_key,
        table_truncates.op,
        table_truncates.is_deleted,
        table_truncates.before_row,
        table_truncates.after_row,
        table_truncates.is_partial,
        table_truncates.unset_columns,
        table_truncates.column_types_id,
        table_truncates.source_format,
        table_truncates.source_ts,
        table_truncates.sync_ts,
        table_truncates.ordering_key,
        table_truncates.event_id,
        table_truncates.loaded_at,
        false as is_seed,
        cast(null as int) as seed_version_number,
        cast(null as timestamp) as seed_valid_from

    from {{ table_truncates }} as table_truncates
    inner join fold_row_keys
        on
            table_truncates.table_key = fold_row_keys.table_key
            and table_truncates.ordering_key > fold_row_keys.first_ordering_key

),
    {%- endif %}

    {# Both inputs by name: the union is by position. #}
fold_all_versions as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        primary_key,
        op,
        is_deleted,
        before_row,
        after_row,
        is_partial,
        unset_columns,
        column_types_id,
        source_format,
        source_ts,
        sync_ts,
        ordering_key,
        event_id,
        loaded_at,
        is_seed,
        seed_version_number,
        seed_valid_from
    from {{ key_versions }}
    {% if has_truncates %}

    union all

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        primary_key,
        op,
        is_deleted,
        before_row,
        after_row,
        is_partial,
        unset_columns,
        column_types_id,
        source_format,
        source_ts,
        sync_ts,
        ordering_key,
        event_id,
        loaded_at,
        is_seed,
        seed_version_number,
        seed_valid_from
    from fold_truncate_versions
{% endif %}

),

{# A truncate of a row already deleted (or truncated) changes nothing: it is no version.
   Such rows stay (flagged) so that a stored version a late change makes ineffective is
   replaced; every window below keeps them apart (partition by is_effective). #}
fold_checked_versions as (

    select
        *,
{% if has_truncates %}
        is_seed or not (
            op = 'truncate'
            and coalesce(
                lag(is_deleted) over (
                    partition by table_key, primary_key order by ordering_key, event_id
                ),
                true
            )
        ) as is_effective
{% else %}
        true as is_effective
{% endif %}

    from fold_all_versions

),
    {%- if has_partial_changes %}

fold_segmented_versions as (

    select
        *,
        sum(case when is_partial then 0 else 1 end) over (
            partition by table_key, primary_key, is_effective
            order by ordering_key, event_id
            rows between unbounded preceding and current row
        ) as segment_number

    from fold_checked_versions

),

{# Per segment: whether it holds partial changes, and the distinct column lists of its
   versions (each sorted): a segment's versions mostly write the same few lists, so
   flattening them is linear in its versions, where every version's list was quadratic. #}
fold_positioned_versions as (

    select
        *,
        row_number() over (
            partition by table_key, primary_key, is_effective, segment_number
            order by ordering_key, event_id
        ) as segment_position,
        max(is_partial) over segment_versions as segment_has_partial,
        collect_set(array_sort(array_distinct(concat(
            map_keys(coalesce(before_row, cast(map() as map<string, string>))),  -- noqa: LT01
            map_keys(coalesce(after_row, cast(map() as map<string, string>))),  -- noqa: LT01
            coalesce(unset_columns, cast(array() as array<string>))  -- noqa: LT01
        )))) over segment_versions as segment_column_lists

    from fold_segmented_versions
    window segment_versions as (
        partition by table_key, primary_key, is_effective, segment_number
    )

),

{# Every column write of a segment with partial changes, in the order the fold applies
   them: position in the segment, then opening image (0), before image (1), after image (2),
   unset (3); and a probe (4) of every segment column after each partial version's writes. #}
fold_column_writes as (

    select
        table_key,
        primary_key,
        segment_number,
        segment_position,
        write_order,
        column_name,
        column_value,
        is_unset

    from fold_positioned_versions
    lateral view inline(
        concat(
            case
                when not is_partial and not is_deleted
                    then coalesce(
                        transform(
                            map_entries(coalesce(after_row, before_row)),
                            entry -> named_struct(
                                'write_order', 0, 'column_name', entry.key,
                                'column_value', entry.value, 'is_unset', false
                            )
                        ),
                        {{ no_writes }}
                    )
                else {{ no_writes }}
            end,
            case
                when is_partial
                    then coalesce(
                        transform(
                            map_entries(before_row),
                            entry -> named_struct(
                                'write_order', 1, 'column_name', entry.key,
                                'column_value', entry.value, 'is_unset', false
                            )
                        ),
                        {{ no_writes }}
                    )
                else {{ no_writes }}
            end,
            case
                when is_partial
                    then coalesce(
                        transform(
                            map_entries(after_row),
                            entry -> named_struct(
                                'write_order', 2, 'column_name', entry.key,
                                'column_value', entry.value, 'is_unset', false
                            )
                        ),
                        {{ no_writes }}
                    )
                else {{ no_writes }}
            end,
            case
                when is_partial
                    then coalesce(
                        transform(
                            unset_columns,
                            column_name -> named_struct(
                                'write_order', 3, 'column_name', column_name,
                                'column_value', cast(null as string), 'is_unset', true
                            )
                        ),
                        {{ no_writes }}
                    )
                else {{ no_writes }}
            end,
            case
                when is_partial
                    then transform(
                        array_distinct(flatten(segment_column_lists)),
                        column_name -> named_struct(
                            'write_order', 4, 'column_name', column_name,
                            'column_value', cast(null as string), 'is_unset', false
                        )
                    )
                else {{ no_writes }}
            end
        )
    ) column_writes as write_order, column_name, column_value, is_unset
    where is_effective and segment_has_partial

),

fold_resolved_columns as (

    select
        *,
        last(
            case
                when write_order < 4
                    then named_struct('column_value', column_value, 'is_unset', is_unset)
            end,
            true
        ) over (
            partition by table_key, primary_key, segment_number, column_name
            order by segment_position, write_order
            rows between unbounded preceding and current row
        ) as last_write

    from fold_column_writes

),

fold_partial_rows as (

    select
        table_key,
        primary_key,
        segment_number,
        segment_position,
        map_from_entries(collect_list(
            case
                when not last_write.is_unset
                    then struct(column_name, last_write.column_value)
            end
        )) as folded_row

    from fold_resolved_columns
    where write_order = 4 and last_write is not null
    group by table_key, primary_key, segment_number, segment_position

),

{# A partial change shows the row folded so far; a full image shows itself; a delete its
   before image. #}
fold_folded_versions as (

    select
        fold_positioned_versions.*,
        case
            when fold_positioned_versions.is_partial
                then coalesce(
                    fold_partial_rows.folded_row,
                    cast(map() as map<string, string>)  -- noqa: LT01
                )
            else coalesce(fold_positioned_versions.after_row, fold_positioned_versions.before_row)
        end as folded_row

    from fold_positioned_versions
    left join fold_partial_rows
        on
            fold_positioned_versions.is_effective
            and fold_positioned_versions.table_key = fold_partial_rows.table_key
            and fold_positioned_versions.primary_key = fold_partial_rows.primary_key
            and fold_positioned_versions.segment_number = fold_partial_rows.segment_number
            and fold_positioned_versions.segment_position = fold_partial_rows.segment_position

),

{%- else %}

fold_folded_versions as (

    select
        *,
        coalesce(after_row, before_row) as folded_row

    from fold_checked_versions

),
    {%- endif %}

    {# A truncate, or a delete that sent no before image, shows the row as it found it. A
       key's seed is always its first version: read from the window the fill already sorts
       by, not from a second window over the whole key. #}
fold_filled_versions as (

    select
        *,
        coalesce(
            folded_row,
            last_value(folded_row, true) over (
                partition by table_key, primary_key, is_effective
                order by ordering_key, event_id
                rows between unbounded preceding and 1 preceding
            )
        ) as row_data,
        case
            when is_seed then seed_valid_from
            else coalesce(source_ts, sync_ts, loaded_at)
        end as valid_from,
        coalesce(
            first_value(seed_version_number) over (
                partition by table_key, primary_key, is_effective
                order by ordering_key, event_id
                rows between unbounded preceding and current row
            ),
            1
        ) - 1 as version_offset

    from fold_folded_versions

),

{# Ineffective versions keep only what identifies them (they are no version of the row). #}
folded_history as (

    select
        ---------- keys
        table_key,
        primary_key,
        primary_key_columns,
        database_name,
        schema_name,
        table_name,
        ---------- the version
        case when is_effective then row_number() over key_order + version_offset end
            as version_number,
        case when is_effective then row_data end as row_data,
        column_types_id,
        op,
        is_deleted,
        is_partial,
        ---------- when it held
        case when is_effective then valid_from end as valid_from,
        case when is_effective then lead(valid_from) over key_order end as valid_to,
        is_effective and lead(event_id) over key_order is null as is_current,
        ordering_key as valid_from_ordering_key,
        case when is_effective then lead(ordering_key) over key_order end
            as valid_to_ordering_key,
        ---------- where it came from
        source_format,
        source_ts,
        event_id,
        loaded_at,
        ---------- how it was folded
        is_effective,
        is_seed

    from fold_filled_versions
    window key_order as (
        partition by table_key, primary_key, is_effective order by ordering_key, event_id
    )

)

{%- endmacro %}
