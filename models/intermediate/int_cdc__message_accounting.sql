{#- Appends the accounting of the loads since its last run: each new landed message against
    what staging and every model after it hold for it (whatever run wrote those rows), so it
    still checks their increments rather than trusting them. `dbt run --full-refresh --select
    int_cdc__message_accounting` recounts every landed message (the full reconciliation). -#}
{%- set new_loads = loaded_since_last_run(ref('int_cdc__staged_events')) -%}
{#- Which models hold the new event_ids is read for those only; on a first or full run that
    is all of them, and the filter would broadcast every event_id to every task. -#}
{%- set of_new_event_ids = 'true' if new_loads == 'true'
    else 'event_id in (select staged_events.event_id from staged_events)' -%}

{#- Every enabled format's landing table (macro cdc_formats, var cdc_lake_formats). -#}
{%- set landing_tables = [] -%}
{%- for entry in enabled_cdc_formats() -%}
    {%- do landing_tables.append((entry.source, entry.format)) -%}
{%- endfor -%}

{#- The models a staged row can land in, by event_kind. A truncate is a change and a
    statement, so it lands in the change log and in the schema changes; a tombstone lands in
    none (it is counted, not modelled). -#}
{%- set destinations = [
    ('change_log', 'int_cdc__change_log', "event_kind = 'change'"),
    ('heartbeats', 'int_cdc__heartbeats', "event_kind = 'heartbeat'"),
    (
        'schema_changes',
        'int_cdc__schema_changes',
        "event_kind = 'schema_change' or (event_kind = 'change' and op = 'truncate')",
    ),
    ('transaction_markers', 'int_cdc__transaction_markers', "event_kind = 'transaction'"),
    ('rejected_messages', 'int_cdc__rejected_messages', "event_kind = 'rejected'"),
] -%}

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

staged_events as (

    select * from all_staged_events
    where {{ new_loads }}

),

{% for destination, model, _ in destinations %}
    {{ model }} as (

        select * from {{ ref(model) }}

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

{# Every row of the models after staging, by the staged row it came from. Only the change
   log keeps row_index; the other models' rows are matched on the message and event_id. #}
modelled_rows as (

    {% for destination, model, _ in destinations %}
        select
            '{{ destination }}' as destination,
            event_id,
            source_format,
            source_file,
            source_position,
            loaded_at,
            {% if destination == 'change_log' %}
                row_index
            {% else %}
                cast(null as int) as row_index
            {% endif %}
        from {{ model }}
        where {{ new_loads }}
        {% if not loop.last %}
            union all
        {% endif %}
    {% endfor %}

),

{# Which models hold an event_id of the new staged rows at all (from any delivery, any load). #}
modelled_event_ids as (

    select
        {% for destination, _, _ in destinations %}
            count_if(destination = '{{ destination }}') > 0 as has_{{ destination }},
        {% endfor %}
        event_id
    from (
        {% for destination, model, _ in destinations %}
            select
                '{{ destination }}' as destination,
                event_id
            from {{ model }}
            where {{ of_new_event_ids }}
            {% if not loop.last %}
                union all
            {% endif %}
        {% endfor %}
    ) as modelled_ids
    group by event_id

),

{# Event kinds of the new staged rows that earlier loads delivered already. #}
earlier_deliveries as (

    select distinct
        event_id as earlier_event_id,
        event_kind as earlier_event_kind
    from all_staged_events
    where
        not ({{ new_loads }})
        and event_id in (select staged_events.event_id from staged_events)

),

{# copy_number tells identical staged rows apart: only the first copy can land in a model,
   further copies are duplicates of it. delivery_number orders the deliveries of one event_id
   (first loaded first), for the kinds no model de-duplicates. #}
staged_rows as (

    select
        staged_events.event_id,
        staged_events.event_kind,
        staged_events.op,
        staged_events.source_format,
        staged_events.source_file,
        staged_events.source_position,
        staged_events.loaded_at,
        staged_events.row_index,
        {% for destination, _, condition in destinations %}
            coalesce({{ condition }}, false) as expects_{{ destination }},
        {% endfor %}
        row_number() over (
            partition by
                staged_events.event_id,
                staged_events.event_kind,
                staged_events.op,
                staged_events.source_format,
                staged_events.source_file,
                staged_events.source_position,
                staged_events.loaded_at,
                staged_events.row_index
            order by staged_events.event_id
        ) as copy_number,
        row_number() over (
            partition by staged_events.event_id, staged_events.event_kind
            order by
                staged_events.loaded_at,
                staged_events.source_file,
                staged_events.source_position,
                staged_events.row_index
        ) + case when earlier_deliveries.earlier_event_id is null then 0 else 1 end
            as delivery_number
    from staged_events
    left join earlier_deliveries
        on
            staged_events.event_id = earlier_deliveries.earlier_event_id
            and staged_events.event_kind = earlier_deliveries.earlier_event_kind

),

{# How often each staged row appears in each model (same message, event_id and row). #}
staged_row_landings as (

    select
        staged_rows.event_id,
        staged_rows.event_kind,
        staged_rows.source_format,
        staged_rows.source_file,
        staged_rows.source_position,
        staged_rows.loaded_at,
        staged_rows.row_index,
        staged_rows.copy_number,
        {% for destination, _, _ in destinations %}
            staged_rows.expects_{{ destination }},
        {% endfor %}
        {% for destination, _, _ in destinations %}
            count_if(modelled_rows.destination = '{{ destination }}') as in_{{ destination }},
        {% endfor %}
        staged_rows.delivery_number

    from staged_rows
    left join modelled_rows
        on
            staged_rows.copy_number = 1
            and staged_rows.event_id = modelled_rows.event_id
            and staged_rows.source_format = modelled_rows.source_format
            and staged_rows.source_file = modelled_rows.source_file
            and staged_rows.source_position = modelled_rows.source_position
            and staged_rows.loaded_at = modelled_rows.loaded_at
            and (
                modelled_rows.row_index is null
                or staged_rows.row_index = modelled_rows.row_index
            )
    group by
        {% for destination, _, _ in destinations %}
            staged_rows.expects_{{ destination }},
        {% endfor %}
        staged_rows.event_id,
        staged_rows.event_kind,
        staged_rows.op,
        staged_rows.source_format,
        staged_rows.source_file,
        staged_rows.source_position,
        staged_rows.loaded_at,
        staged_rows.row_index,
        staged_rows.copy_number,
        staged_rows.delivery_number

),

{# Each staged row's outcome: landed where its kind says (exactly once in each such model),
   a duplicate (in no model, while every model it belongs in holds its event_id from another
   delivery), or unaccounted (anything else: lost, doubled, misrouted). An update half lands
   in no model (staging paired it with the other half, whose change carries its image): the
   first delivery of its event_id is an update half, later ones are duplicates. #}
staged_row_outcomes as (

    select
        staged_row_landings.source_format,
        staged_row_landings.source_file,
        staged_row_landings.source_position,
        staged_row_landings.loaded_at,
        case
            when
                staged_row_landings.copy_number = 1
                and staged_row_landings.event_kind in (
                    'change', 'heartbeat', 'schema_change', 'transaction', 'tombstone', 'rejected'
                )
                {% for destination, _, _ in destinations %}
                    and staged_row_landings.in_{{ destination }}
                    = cast(staged_row_landings.expects_{{ destination }} as int)
                {% endfor %}
                then staged_row_landings.event_kind
            when
                staged_row_landings.event_kind = 'update_half'
                {% for destination, _, _ in destinations %}
                    and staged_row_landings.in_{{ destination }} = 0
                {% endfor %}
                then
                    case
                        when staged_row_landings.delivery_number = 1 then 'update_half'
                        else 'duplicate'
                    end
            when
                staged_row_landings.event_kind in (
                    'change', 'heartbeat', 'schema_change', 'transaction'
                )
                {% for destination, _, _ in destinations %}
                    and staged_row_landings.in_{{ destination }} = 0
                    and (
                        not staged_row_landings.expects_{{ destination }}
                        or coalesce(modelled_event_ids.has_{{ destination }}, false)
                    )
                {% endfor %}
                then 'duplicate'
            else 'unaccounted'
        end as row_outcome

    from staged_row_landings
    left join modelled_event_ids
        on staged_row_landings.event_id = modelled_event_ids.event_id

),

staged_messages as (

    select
        source_format,
        source_file,
        source_position,
        loaded_at,
        count(*) as staged_rows,
        count_if(row_outcome = 'change') as change_rows,
        count_if(row_outcome = 'heartbeat') as heartbeat_rows,
        count_if(row_outcome = 'schema_change') as schema_change_rows,
        count_if(row_outcome = 'transaction') as transaction_rows,
        count_if(row_outcome = 'tombstone') as tombstone_rows,
        count_if(row_outcome = 'update_half') as update_half_rows,
        count_if(row_outcome = 'rejected') as rejected_rows,
        count_if(row_outcome = 'duplicate') as duplicate_rows,
        count_if(row_outcome = 'unaccounted') as unaccounted_rows
    from staged_row_outcomes
    group by source_format, source_file, source_position, loaded_at

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
        update_half_rows,
        rejected_rows,
        duplicate_rows,
        unaccounted_rows

    from joined

)

select * from final
