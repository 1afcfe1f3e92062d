{#- The state each column has while the DDL history is replayed onto a table's columns. -#}
{%- set column_state_type -%}
    struct<
        source_type: string,
        position_hint: int,
        type_source: string,
        seen_ordering_key: string,
        last_seen_at: timestamp
    >
{%- endset -%}

{#- Replaying one DDL action (`ddl`) onto the columns so far (`column_states`): it applies to a
   column only when it is newer than what last described the column. Names match whatever
   their case, as they do in the databases. -#}
{%- set same_name -%}
    (column_name, column_state) -> lower(column_name) = lower(ddl.target_column)
{%- endset -%}
{%- set same_column = "map_filter(column_states, " ~ same_name ~ ")" -%}
{%- set existing_name = "try_element_at(map_keys(" ~ same_column ~ "), 1)" -%}
{%- set existing = "try_element_at(map_values(" ~ same_column ~ "), 1)" -%}
{%- set renamed_existing -%}
    try_element_at(map_values(map_filter(
        column_states,
        (column_name, column_state) -> lower(column_name) = lower(ddl.new_name)
    )), 1)
{%- endset -%}
{%- set is_newer = "coalesce(" ~ existing ~ ".seen_ordering_key < ddl.ordering_key, true)" -%}
{%- set next_position -%}
    coalesce(array_max(transform(
        map_values(column_states), column_state -> column_state.position_hint
    )), 0) + 1
{%- endset -%}
{%- set described_by_ddl -%}
    cast(named_struct(
        'source_type', coalesce(ddl.data_type, {{ existing }}.source_type),
        'position_hint', coalesce({{ existing }}.position_hint, {{ next_position }}),
        'type_source', 'ddl',
        'seen_ordering_key', ddl.ordering_key,
        'last_seen_at', ddl.source_ts
    ) as {{ column_state_type }})
{%- endset -%}

{#- Rebuilt only when what it says could change (macro with_build_signature): a new DDL
    statement (the schema changes' newest load), or a sighting whose content, or place among
    its table's DDL statements, changed: the replay compares a sighting's ordering key with
    each DDL statement's (before, the same, after; ties by event id), so the signature
    holds how many statements of its table come before it in each of those orders. What a
    table's new row-changes move and nothing else (the time and ordering key its columns
    were last described at) cdc_table_schemas reads from the sightings, so a run that
    brought only row-changes of known columns leaves this table as it is. -#}
{%- set described = [
    'sightings.sighting', 'sightings.table_key', 'sightings.column_name',
    'sightings.column_index', 'sightings.database_name', 'sightings.schema_name',
    'sightings.table_name', 'sightings.db_type', 'sightings.primary_key_columns',
    'to_json(sightings.column_types)',
] -%}
{%- set sightings_described -%}
    select md5(to_json(array_sort(collect_list(described))))
    from (
        select
            struct(
                {{ described | join(', ') }},
                count_if(ddl.ordering_key < sightings.ordering_key),
                count_if(ddl.ordering_key <= sightings.ordering_key),
                count_if(
                    struct(ddl.ordering_key, ddl.event_id)
                    < struct(sightings.ordering_key, sightings.event_id)
                )
            ) as described
        from {{ ref('int_cdc__table_sightings') }} as sightings
        left join {{ ref('int_cdc__schema_changes') }} as ddl
            on sightings.table_key = ddl.table_key
        where {{ in_newest_generation(ref('int_cdc__table_sightings'), 'sightings.generation') }}
        group by {{ described | join(', ') }}, sightings.ordering_key, sightings.event_id
    ) as sightings_described
{%- endset -%}
{%- set inputs = [
    sightings_described,
    'select max(loaded_at) from ' ~ ref('int_cdc__schema_changes'),
] %}

{%- set query %}

with

table_sightings as (

    select * from {{ ref('int_cdc__table_sightings') }}
    where {{ in_newest_generation(ref('int_cdc__table_sightings')) }}

),

schema_changes as (

    select * from {{ ref('int_cdc__schema_changes') }}

),

row_changes as (

    select * from table_sightings
    where sighting = 'table'

),

{# Where each table lives and its key: its latest change (else its latest DDL). #}
table_events as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        db_type,
        primary_key_columns,
        ordering_key,
        event_id
    from row_changes

    union all

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        db_type,
        cast(null as array<string>) as primary_key_columns,
        ordering_key,
        event_id
    from schema_changes
    where table_key is not null

),

latest_table_events as (

    {{ deduplicate(
        'table_events',
        partition_by='table_key',
        order_by='primary_key_columns is null, ordering_key desc, event_id desc',
    ) }}

),

{# The column set and types of a table: its latest message that sends types. #}
typed_changes as (

    select * from table_sightings
    where sighting = 'typed'

),

latest_typed_changes as (

    {{ deduplicate(
        'typed_changes',
        partition_by='table_key',
        order_by='ordering_key desc, event_id desc',
    ) }}

),

message_columns as (

    select
        latest_typed_changes.table_key,
        typed_columns.column_name,
        typed_columns.source_type,
        typed_columns.column_index + 1 as position_hint,
        'message' as type_source,
        latest_typed_changes.ordering_key as seen_ordering_key,
        latest_typed_changes.source_ts as last_seen_at

    from latest_typed_changes
        lateral view posexplode(latest_typed_changes.column_types)
        typed_columns as column_index, column_name, source_type

),

{# Tables whose format sends no types: every column any image of theirs has carried, each
   where it last appeared, its type unknown. #}
image_columns as (

    select table_sightings.*

    from table_sightings
    left anti join latest_typed_changes
        on table_sightings.table_key = latest_typed_changes.table_key
    where table_sightings.sighting = 'column'

),

latest_image_columns as (

    {{ deduplicate(
        'image_columns',
        partition_by='table_key, column_name',
        order_by='ordering_key desc, event_id desc',
    ) }}

),

inferred_columns as (

    select
        table_key,
        column_name,
        cast(null as string) as source_type,
        column_index + 1 as position_hint,
        'inferred' as type_source,
        ordering_key as seen_ordering_key,
        source_ts as last_seen_at

    from latest_image_columns

),

base_columns as (

    select * from message_columns
    union all
    select * from inferred_columns

),

base_states as (

    select
        table_key,
        map_from_entries(collect_list(struct(
            column_name,
            cast(struct(
                source_type,
                position_hint,
                type_source,
                seen_ordering_key,
                last_seen_at
            ) as {{ column_state_type }})
        ))) as column_states

    from base_columns
    group by table_key

),

{# DDL after the message that gave the types, statement by statement: DataWorks' decoded
   ddlMeta where sent, else what the statement's text says. #}
later_schema_changes as (

    select
        schema_changes.table_key,
        schema_changes.ordering_key,
        schema_changes.event_id,
        schema_changes.source_ts,
        schema_changes.ddl_summary,
        {{ ddl_text_summary('schema_changes.ddl_text') }} as text_summary

    from schema_changes
    left join latest_typed_changes
        on schema_changes.table_key = latest_typed_changes.table_key
    where
        schema_changes.table_key is not null
        and schema_changes.ordering_key > coalesce(latest_typed_changes.ordering_key, '')

),

ddl_statements as (

    select
        table_key,
        ordering_key,
        event_id,
        source_ts,
        coalesce(ddl_summary.statement_type, text_summary.statement_type) as statement_type,
        case
            when ddl_summary.statement_type is not null then ddl_summary.columns
            else text_summary.columns
        end as column_changes

    from later_schema_changes

),

{# One action per changed column, in statement order; CREATE and DROP TABLE first reset the
   columns older than the statement. #}
ddl_actions as (

    select
        table_key,
        ordering_key,
        event_id,
        0 as action_index,
        'reset' as action_kind,
        cast(null as string) as target_column,
        cast(null as string) as new_name,
        cast(null as string) as data_type,
        source_ts

    from ddl_statements
    where statement_type in ('create_table', 'drop_table')

    union all

    select
        ddl_statements.table_key,
        ddl_statements.ordering_key,
        ddl_statements.event_id,
        column_changes.change_index + 1 as action_index,
        column_changes.column_change.action as action_kind,
        column_changes.column_change.name as target_column,
        column_changes.column_change.new_name,
        column_changes.column_change.data_type,
        ddl_statements.source_ts

    from ddl_statements
        lateral view posexplode(ddl_statements.column_changes)
        column_changes as change_index, column_change
    where
        ddl_statements.statement_type in ('create_table', 'alter_table')
        and column_changes.column_change.name is not null

),

table_ddl as (

    select
        table_key,
        array_sort(collect_list(struct(
            ordering_key,
            event_id,
            action_index,
            action_kind,
            target_column,
            new_name,
            data_type,
            source_ts
        ))) as actions

    from ddl_actions
    group by table_key

),

{# Replay: each action applies to a column only where it is newer than what last described
   the column (for tables without types, columns were seen at different times). #}
replayed as (

    select
        latest_table_events.table_key,
        aggregate(
            coalesce(table_ddl.actions, array()),
            coalesce(
                base_states.column_states,
                cast(map() as map<string, {{ column_state_type }}>)  -- noqa: LT01
            ),
            (column_states, ddl) -> case
                when ddl.action_kind = 'reset'
                    then map_filter(
                        column_states,
                        (column_name, column_state) -> column_state.seen_ordering_key
                        > ddl.ordering_key
                    )
                when ddl.action_kind in ('add', 'modify') and {{ is_newer }}
                    then map_concat(
                        map_filter(
                            column_states,
                            (column_name, column_state) -> lower(column_name)
                            != lower(ddl.target_column)
                        ),
                        map(
                            coalesce({{ existing_name }}, ddl.target_column), {{ described_by_ddl }}
                        )
                    )
                when
                    ddl.action_kind = 'rename'
                    and ddl.new_name is not null
                    and {{ is_newer }}
                    and coalesce({{ renamed_existing }}.seen_ordering_key < ddl.ordering_key, true)
                    then map_concat(
                        map_filter(
                            column_states,
                            (column_name, column_state) -> lower(column_name)
                            not in (lower(ddl.target_column), lower(ddl.new_name))
                        ),
                        map(ddl.new_name, {{ described_by_ddl }})
                    )
                when ddl.action_kind = 'drop'
                    then map_filter(
                        column_states,
                        (column_name, column_state) -> not (
                            lower(column_name) = lower(ddl.target_column)
                            and column_state.seen_ordering_key < ddl.ordering_key
                        )
                    )
                else column_states
            end
        ) as column_states

    from latest_table_events
    left join base_states
        on latest_table_events.table_key = base_states.table_key
    left join table_ddl
        on latest_table_events.table_key = table_ddl.table_key

),

table_columns as (

    select
        replayed.table_key,
        table_column.column_name,
        table_column.column_state.*

    from replayed
        lateral view explode(replayed.column_states) table_column as column_name, column_state

),

final as (

    select
        ---------- keys
        table_columns.table_key,
        table_columns.column_name,
        ---------- where the table lives
        latest_table_events.database_name,
        latest_table_events.schema_name,
        latest_table_events.table_name,
        latest_table_events.db_type,
        ---------- the column
        row_number() over (
            partition by table_columns.table_key
            order by table_columns.position_hint, table_columns.column_name
        ) as column_position,
        table_columns.source_type,
        {{ spark_type_for_source_type(
            'table_columns.source_type', 'latest_table_events.db_type'
        ) }} as spark_type,
        coalesce(
            array_contains(latest_table_events.primary_key_columns, table_columns.column_name),
            false
        ) as is_primary_key,
        table_columns.type_source,
        ---------- when it was last described
        table_columns.last_seen_at,
        table_columns.seen_ordering_key as last_ordering_key

    from table_columns
    inner join latest_table_events
        on table_columns.table_key = latest_table_events.table_key

)

select * from final

{%- endset %}

{{ with_build_signature(query, inputs) }}
