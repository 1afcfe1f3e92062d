{#- Appends the accounting of the loads since its last run: each new landed message against
    what staging and every model after it hold for it (whatever run wrote those rows), so it
    still checks their increments rather than trusting them. `dbt run --full-refresh --select
    int_cdc__message_accounting` recounts every landed message (the full reconciliation). -#}
{%- set new_loads = loaded_since_last_run(
    staged_loads(), parents=staged_models()
) -%}
{#- Every enabled format's landing table (macro cdc_formats, var cdc_lake_formats). -#}
{%- set landing_tables = [] -%}
{%- for entry in enabled_cdc_formats() -%}
    {%- do landing_tables.append((entry.source, entry.format)) -%}
{%- endfor -%}

{#- The models after staging that store what a staged row becomes, by the staged rows they
    keep. A truncate is a change and a statement, so it lands in the schema changes too; a
    tombstone and an update half land in none (they are counted, not modelled). A model that
    is a view of staging (the change log, and in dbt_project.yml the heartbeats, the
    transaction markers and the rejected messages) holds by definition the staged rows its
    filter keeps, so what is checked for it is staging's flag (every event has exactly one
    kept delivery), not a second read of staging, which was much of this model's query
    (figures: udfs/benchmarks/README.md). Which models are views is read from the project
    (`graph`), so one made a table is checked again. While dbt parses, every one is named, as
    the model's lineage. -#}
{%- set destinations = [] -%}
{%- for destination in [
    ('heartbeats', 'int_cdc__heartbeats', "event_kind = 'heartbeat' and is_first_delivery"),
    ('schema_changes', 'int_cdc__schema_changes', is_logged_statement()),
    (
        'transaction_markers',
        'int_cdc__transaction_markers',
        "event_kind = 'transaction' and is_first_delivery",
    ),
    ('rejected_messages', 'int_cdc__rejected_messages', "event_kind = 'rejected'"),
] -%}
    {%- if not execute
        or graph.nodes['model.' ~ project_name ~ '.' ~ destination[1]].config.materialized
        != 'view' -%}
        {%- do destinations.append(destination) -%}
    {%- endif -%}
{%- endfor -%}
{%- set message_columns = ['source_format', 'source_file', 'source_position', 'loaded_at'] -%}
{#- A staged row's outcome when its event has exactly one kept delivery. -#}
{%- set row_outcome -%}
    case
        when event_kind in ('rejected', 'tombstone') then event_kind
        when not is_first_delivery then 'duplicate'
        else event_kind
    end
{%- endset -%}

with

{% for source_name, table_name in landing_tables %}
    {{ table_name }} as (

        select * from {{ source(source_name, table_name) }}
        where {{ new_loads }}

    ),

{% endfor %}
all_staged_events as (

    select * from {{ ref('int_cdc__staged_events') }}

),

{# The new staged rows, read by five parts of the query: on an incremental run computed once
   (macro computed_once); a full build reads its every staged row from parquet again, which
   is faster than storing them once more for the readers. #}
staged_events as (

    select * from all_staged_events
    where {{ new_loads }}{% if is_incremental() %} and {{ computed_once() }}{% endif %}

),

{% for destination, model, _ in destinations %}
    {{ model }} as (

        select * from {{ ref(model) }}
        where {{ new_loads }}

    ),

{% endfor %}
{# One row per landed message: (source_format, source_file, source_position, loaded_at). #}
landed_messages as (

    {% for _, table_name in landing_tables %}
        select
            '{{ table_name }}' as source_format,
            source_file,
            source_position,
            loaded_at,
            kafka_topic,
            kafka_partition,
            kafka_offset
        from {{ table_name }}
        {% if not loop.last %}
            union all
        {% endif %}
    {% endfor %}

),

{# The events of the new staged rows none of whose new deliveries staging kept: each should
   be a duplicate of a delivery an earlier load staged and kept. Only these are looked up in
   the deliveries held: the lookup reads every row staging ever stored (the largest read of
   a run, and one that grows with history), and a run that brings no such event, the usual
   stream, skips it whole (its broadcast side is empty). That a new kept delivery has no
   kept one before it is what staging's own lookup decides; the full reconciliation
   (`--full-refresh`) counts every delivery of every event again. #}
unkept_event_ids as (

    select distinct event_id
    from (
        select event_id
        from staged_events
        group by event_id, event_kind
        having count_if(is_first_delivery) = 0
    ) as unkept_events

),

{# Every new delivery, and those of the events above that earlier loads staged (on a first
   or full run, `not true`: Spark plans that part away). The ids looked up are broadcast and
   each held row is looked up in them where it is read: a join Spark plans itself shuffled
   every held row's id (it cannot size the new rows' plan). Of any delivery only what counts
   its event's kept deliveries is read. #}
deliveries as (

    select
        event_id,
        event_kind,
        is_first_delivery
    from staged_events

    union all

    select /*+ broadcast(unkept_event_ids) */
        all_staged_events.event_id,
        all_staged_events.event_kind,
        all_staged_events.is_first_delivery
    from all_staged_events
    left semi join unkept_event_ids
        on all_staged_events.event_id = unkept_event_ids.event_id
    where not ({{ new_loads }})

),

{# The events whose deliveries staging kept other than once: lost (none kept) or doubled
   (two). Staging keeps exactly one delivery of every event (the first loaded,
   `is_first_delivery`). An aggregate of each delivery's id, kind and flag, not a window that
   would shuffle and sort every delivery with its message's columns. #}
unkept_or_doubled_events as (

    select
        event_id,
        event_kind

    from deliveries
    group by event_id, event_kind
    having count_if(is_first_delivery) != 1

),

{# Each new staged row's outcome, with a weight. Every model but the rejected messages keeps
   only an event's kept delivery; rejected messages and tombstones are kept or counted at
   every delivery. A row of an event above is unaccounted instead: it is counted as a
   correction (-1 for the outcome it had, +1 unaccounted), so only those rare rows are
   looked up. The events looked up are broadcast, as unkept_event_ids are: none while
   staging keeps one delivery of each event. #}
staged_rows as (

    select
        {{ message_columns | join(', ') }},
        {{ row_outcome }} as row_outcome,
        1 as weight

    from staged_events

    union all

    select /*+ broadcast(unkept_or_doubled_events) */
        {{ message_columns | join(', ') }},
        correction.row_outcome,
        correction.weight

    from staged_events
    left semi join unkept_or_doubled_events
        on
            staged_events.event_id = unkept_or_doubled_events.event_id
            and staged_events.event_kind = unkept_or_doubled_events.event_kind
        lateral view inline(array(
            named_struct('row_outcome', {{ row_outcome }}, 'weight', -1),
            named_struct('row_outcome', 'unaccounted', 'weight', 1)
        )) correction

),

{# The tables after staging against the new staged rows, per message, event and table: as
   many rows as staged rows that belong there (the staged rows are read once, each naming
   the tables it belongs in, not once a table). One mismatch (lost, doubled or misrouted) is
   an unaccounted row of its message. #}
destination_mismatches as (

    select
        {{ message_columns | join(', ') }},
        'unaccounted' as row_outcome

    from (
        select
            {{ message_columns | join(', ') }},
            event_id,
            destination,
            1 as expected_rows,
            0 as modelled_rows
        from staged_events
            lateral view explode(array(
                {% for destination, _, condition in destinations %}
                    case when {{ condition }} then '{{ destination }}' end
                    {%- if not loop.last %},{% endif %}
                {% endfor %}
            )) expected_destinations as destination
        where destination is not null

        {% for destination, model, _ in destinations %}
            union all

            select
                {{ message_columns | join(', ') }},
                event_id,
                '{{ destination }}' as destination,
                0 as expected_rows,
                1 as modelled_rows
            from {{ model }}
        {% endfor %}
    ) as destination_rows
    group by {{ message_columns | join(', ') }}, event_id, destination
    having sum(expected_rows) != sum(modelled_rows)

),

staged_messages as (

    select
        {{ message_columns | join(', ') }},
        sum(if(is_staged, weight, 0)) as staged_rows,
        sum(if(row_outcome = 'change', weight, 0)) as change_rows,
        sum(if(row_outcome = 'heartbeat', weight, 0)) as heartbeat_rows,
        sum(if(row_outcome = 'schema_change', weight, 0)) as schema_change_rows,
        sum(if(row_outcome = 'transaction', weight, 0)) as transaction_rows,
        sum(if(row_outcome = 'tombstone', weight, 0)) as tombstone_rows,
        sum(if(row_outcome = 'logical_message', weight, 0)) as logical_message_rows,
        sum(if(row_outcome = 'update_half', weight, 0)) as update_half_rows,
        sum(if(row_outcome = 'rejected', weight, 0)) as rejected_rows,
        sum(if(row_outcome = 'duplicate', weight, 0)) as duplicate_rows,
        sum(if(row_outcome = 'unaccounted', weight, 0)) as unaccounted_rows
    from (
        select
            *,
            true as is_staged
        from staged_rows
        union all
        select
            *,
            1 as weight,
            false as is_staged
        from destination_mismatches
    ) as outcomes
    group by {{ message_columns | join(', ') }}

),

{# Full join: a landed message with no staged row, or staged rows of no landed message,
   shows up too. #}
joined as (

    select
        coalesce(landed_messages.source_format, staged_messages.source_format)
            as source_format,
        coalesce(landed_messages.source_file, staged_messages.source_file) as source_file,
        coalesce(landed_messages.source_position, staged_messages.source_position)
            as source_position,
        coalesce(landed_messages.loaded_at, staged_messages.loaded_at) as loaded_at,
        landed_messages.kafka_topic,
        landed_messages.kafka_partition,
        landed_messages.kafka_offset,
        landed_messages.source_format is not null as is_landed,
        coalesce(staged_messages.staged_rows, 0) as staged_rows,
        coalesce(staged_messages.change_rows, 0) as change_rows,
        coalesce(staged_messages.heartbeat_rows, 0) as heartbeat_rows,
        coalesce(staged_messages.schema_change_rows, 0) as schema_change_rows,
        coalesce(staged_messages.transaction_rows, 0) as transaction_rows,
        coalesce(staged_messages.tombstone_rows, 0) as tombstone_rows,
        coalesce(staged_messages.logical_message_rows, 0) as logical_message_rows,
        coalesce(staged_messages.update_half_rows, 0) as update_half_rows,
        coalesce(staged_messages.rejected_rows, 0) as rejected_rows,
        coalesce(staged_messages.duplicate_rows, 0) as duplicate_rows,
        coalesce(staged_messages.unaccounted_rows, 0) as unaccounted_rows

    from landed_messages
    full outer join staged_messages
        on
            landed_messages.source_format = staged_messages.source_format
            and landed_messages.source_file = staged_messages.source_file
            and landed_messages.source_position = staged_messages.source_position
            and landed_messages.loaded_at = staged_messages.loaded_at

),

final as (

    select
        ---------- the landed message
        source_format,
        source_file,
        source_position,
        loaded_at,
        kafka_topic,
        kafka_partition,
        kafka_offset,
        ---------- its one outcome
        case
            when not is_landed or staged_rows = 0 or unaccounted_rows > 0 then 'unaccounted'
            when change_rows > 0 or update_half_rows > 0 then 'change'
            when schema_change_rows > 0 then 'schema_change'
            when transaction_rows > 0 then 'transaction'
            when heartbeat_rows > 0 then 'heartbeat'
            when tombstone_rows > 0 then 'tombstone'
            when logical_message_rows > 0 then 'logical_message'
            when duplicate_rows > 0 then 'duplicate'
            else 'rejected'
        end as outcome,
        not is_landed or staged_rows = 0 or unaccounted_rows > 0 as is_unaccounted,
        case
            when not is_landed then 'staged rows of no landed message'
            when staged_rows = 0 then 'landed message gave no staged row'
            when unaccounted_rows > 0
                then
                    'staged rows in no model, in a model twice or in the wrong model: '
                    || unaccounted_rows
        end as accounting_error,
        ---------- its staged rows, by outcome
        staged_rows,
        change_rows,
        heartbeat_rows,
        schema_change_rows,
        transaction_rows,
        tombstone_rows,
        logical_message_rows,
        update_half_rows,
        rejected_rows,
        duplicate_rows,
        unaccounted_rows

    from joined

)

{#- Nothing new: no insert (macro select_new_rows), not a plan of the accounting of no rows
    and an insert of an empty file. #}
{{ select_new_rows(new_loads) }}
