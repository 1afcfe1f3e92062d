-- sqlfluff:indentation:template_blocks_indent:False
{#- What every row-change loaded so far says about its table, reduced to the little
    cdc_table_schemas and cdc_row_history need: each table's latest change (where it lives,
    its key), its latest change that sends column types, each distinct column-type map its
    changes sent (by id, macro column_types_id: the history stores the id, not the map), and,
    from changes that send none, the latest sighting of each column in a row image. One row
    per (sighting, table, column or map), whatever the number of
    runs: a run folds what its new changes say into the rows held and writes them as a new
    `generation`, and its post-hook drops the older one (macro drop_generations_through), so
    cdc_table_schemas reads as many rows as the tables have columns, not one set per run.
    Aggregates, not windows: each task keeps the latest row per group before anything moves,
    so a run shuffles a few rows per table instead of every change (and every column of every
    image), in one pass: the row images of one table mostly share their column list, so the
    latest change per (table, column list) is found first and only those few lists are
    exploded. -#}
{%- set new_loads = loaded_since_last_run(
    staged_loads(is_logged_change()), parents=staged_models()
) %}
{#- What a sighting keeps of the change it saw (the `latest` struct), new or held. #}
{%- set latest_fields = [
    'database_name', 'schema_name', 'table_name', 'db_type', 'primary_key_columns',
    'column_types', 'column_types_id', 'ordering_key', 'event_id', 'source_ts', 'loaded_at',
] %}
{%- if new_loads == 'false' %}

{{ writes_nothing(this) }}

{%- else %}
{#- The generations held (a metastore call), only when there is something to write. #}
{%- set held_generations = partition_generations(this) if execute and is_incremental() else [] %}

with

row_changes as (

    select
        *,
        {{ column_types_id('column_types') }} as column_types_id

    from {{ ref('int_cdc__change_log') }}
    where op != 'truncate' and {{ new_loads }}

),

{# One pass over the changes: the latest change per table, image column list (the list is
   NULL for changes that send column types) and column-type map. #}
change_groups as (

    select
        table_key,
        column_types_id,
        case
            when coalesce(size(column_types), 0) <= 0
                then array_distinct(concat(
                    coalesce(map_keys(after_row), array()),
                    coalesce(map_keys(before_row), array())
                ))
        end as column_names,
        max_by(
            struct({{ latest_fields | join(', ') }}),
            struct(ordering_key, event_id)
        ) as latest

    from row_changes
    group by table_key, column_names, column_types_id

),

{# Each group stands for the table (its latest change), for its types when its changes send
   them (the latest types, and this map of them: cdc_row_history looks a version's map up by
   its id), and for each column of its image list. #}
candidates as (

    select
        change_groups.table_key,
        candidate.*

    from change_groups
        lateral view inline(concat(
            array(named_struct(
                'sighting', 'table',
                'column_name', cast(null as string),
                'column_index', cast(null as int),
                'latest', change_groups.latest
            )),
            case
                when change_groups.column_names is null
                    then array(named_struct(
                        'sighting', 'typed',
                        'column_name', cast(null as string),
                        'column_index', cast(null as int),
                        'latest', change_groups.latest
                    ))
                else array()
            end,
            case
                when change_groups.column_types_id is not null
                    then array(named_struct(
                        'sighting', 'column_types',
                        'column_name', cast(null as string),
                        'column_index', cast(null as int),
                        'latest', change_groups.latest
                    ))
                else array()
            end,
            coalesce(
                transform(
                    change_groups.column_names,
                    (image_column, image_position) -> named_struct(
                        'sighting', 'column',
                        'column_name', image_column,
                        'column_index', image_position,
                        'latest', change_groups.latest
                    )
                ),
                array()
            )
        )) candidate

),

{# The rows held, as candidates again (a table not in the new changes keeps its rows as they
   are). One generation, unless a run stopped before its post-hook: an older one holds
   nothing newer, so folding it in too changes nothing. None on a first or full-refresh run. #}
held_candidates as (

    {%- if held_generations %}

    select
        table_key,
        sighting,
        column_name,
        column_index,
        struct({{ latest_fields | join(', ') }}) as latest

    from {{ this }}

    {%- else %}

    select * from candidates
    where false

    {%- endif %}

),

latest_sightings as (

    select
        sighting,
        table_key,
        column_name,
        column_types_id,
        max_by(
            struct(column_index, latest),
            struct(latest.ordering_key, latest.event_id)
        ) as sighted

    from (
        select
            *,
            case when sighting = 'column_types' then latest.column_types_id end
                as column_types_id
        from (
            select * from candidates
            union all
            select * from held_candidates
        ) as held_and_new
    ) as all_candidates
    group by sighting, table_key, column_name, column_types_id

),

final as (

    select
        sighting,
        table_key,
        {# What a `column` sighting says of its table is in the `table` one. #}
        case when sighting != 'column' then sighted.latest.database_name end as database_name,
        case when sighting != 'column' then sighted.latest.schema_name end
            as schema_name,  -- noqa: RF04
        case when sighting != 'column' then sighted.latest.table_name end
            as table_name,  -- noqa: RF04
        case when sighting != 'column' then sighted.latest.db_type end as db_type,
        case when sighting != 'column' then sighted.latest.primary_key_columns end
            as primary_key_columns,
        case
            when sighting in ('typed', 'column_types') then sighted.latest.column_types
        end as column_types,
        case
            when sighting in ('typed', 'column_types') then sighted.latest.column_types_id
        end as column_types_id,
        column_name,
        sighted.column_index,
        sighted.latest.ordering_key,
        sighted.latest.event_id,
        sighted.latest.source_ts,
        sighted.latest.loaded_at,
        {{ next_generation(held_generations) }} as generation

    from latest_sightings

)

{{ select_new_rows(new_loads) }}

{%- endif %}
