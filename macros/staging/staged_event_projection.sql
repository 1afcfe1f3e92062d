{% macro staged_event_projection(
    relation,
    source_format,
    absent=[],
    events_may_repeat=true,
    new_source_ts_range=none,
    delivered_before=true
) -%}
    {%- set shared = {
        'event_kind':
            "case when checked_rejection_reason is not null then 'rejected'"
            ~ " else message_event_kind end",
        'source_format': "'" ~ source_format ~ "'",
        'op':
            "case when checked_rejection_reason is null and message_event_kind = 'change'"
            ~ " then change_op end",
        'rejection_reason': 'checked_rejection_reason',
        'raw_value':
            "case when checked_rejection_reason is not null"
            ~ " or message_event_kind = 'logical_message' then raw_value_text end",
    } -%}
    {%- set absent_values = {
        'is_partial': 'false', 'unset_columns': 'array()', 'row_index': '0'
    } -%}
    {%- set contract_names = staged_event_columns() -%}
    {%- for name in absent
        if name not in contract_names or name in shared or name == 'is_first_delivery' -%}
        {{ exceptions.raise_compiler_error(
            'staged_event_projection: ' ~ name ~ ' is not a column a format may leave out'
        ) }}
    {%- endfor -%}
    {%- set columns = [] -%}
    {%- for name, spark_type in staged_event_contract() -%}
        {%- if name == 'is_first_delivery' -%}
        {%- elif name in shared -%}
            {%- do columns.append('cast(' ~ shared[name] ~ ' as ' ~ spark_type ~ ') as ' ~ name) -%}
        {%- elif name in absent -%}
            {%- set value = absent_values.get(name, 'null') -%}
            {%- do columns.append('cast(' ~ value ~ ' as ' ~ spark_type ~ ') as ' ~ name) -%}
        {%- else -%}
            {%- do columns.append(name) -%}
        {%- endif -%}
    {%- endfor -%}
    {#- Whether a row is its event's first among the run's rows (see `final`). -#}
    {%- set first_in_run = 'true' -%}
    {%- if events_may_repeat -%}
        {%- set first_in_run -%}
            row_number() over (
                partition by projected.event_id, projected.event_kind
                order by
                    projected.loaded_at,
                    projected.kafka_partition,
                    projected.kafka_offset,
                    projected.source_file,
                    projected.source_position,
                    projected.row_index
            ) = 1
        {%- endset -%}
    {%- endif %}
    {#- Whether earlier runs' deliveries are looked up: not on a first or full-refresh run,
        nor when the run's probe found none of its messages held. -#}
    {%- set looks_up_held = is_incremental() and delivered_before %}
shared_rules_checked as (

    select
        *,
        {{ staged_event_violation(absent) | indent(8) }} as shared_violation,
        {{ staged_row_violation(absent) | indent(8) }} as row_violation

    from {{ relation }}

),

{# The format's own reason first, then the message's rules (a message that breaks one is one
   rejected row), then the row's. The filter tests its cheap terms first: Spark pushes it
   below the projections, and `or` stops at the first true. #}
shared_rules_applied as (

    select
        *,
        coalesce(rejection_reason, shared_violation, row_violation) as checked_rejection_reason

    from shared_rules_checked
    {%- if 'row_index' not in absent %}
    where row_index = 0 or shared_violation is null or rejection_reason is not null
    {%- endif %}

),

{# Read twice where held rows are looked up (for its event ids, then as the rows):
   computed once there (macro computed_once), not parsed twice. Otherwise read once. #}
projected as (

    select
        {{ columns | join(',\n        ') }}

    from shared_rules_applied
    {%- if looks_up_held %}
    where {{ computed_once() }}
    {%- endif %}

),

{# The new rows' event ids that earlier runs staged already: the few new ids broadcast (a
   join Spark plans itself shuffles every held row), the held rows read only within the
   run's range of `source_ts` where the format gives one. #}
held_deliveries as (

    {%- if looks_up_held %}

    select /*+ broadcast(new_event_ids) */ distinct
        held.event_id,
        held.event_kind

    from {{ this }} as held
    left semi join (select distinct projected.event_id from projected) as new_event_ids
        on held.event_id = new_event_ids.event_id
    {%- if new_source_ts_range is not none %}
    where {{ held_rows_of_times('held.source_ts', new_source_ts_range) }}
    {%- endif %}

    {%- else %}

    select
        cast(null as string) as event_id,
        cast(null as string) as event_kind

    where false

    {%- endif %}

),

{# Kafka is at-least-once: the first delivery of each event is the one every later model
   keeps. The window (a sort of every row) is left out where no two rows can be one event. #}
final as (

    select
        projected.*,
        held_deliveries.event_id is null and {{ first_in_run }} as is_first_delivery

    from projected
    left join held_deliveries
        on
            projected.event_id = held_deliveries.event_id
            and projected.event_kind = held_deliveries.event_kind

)
{%- endmacro %}
