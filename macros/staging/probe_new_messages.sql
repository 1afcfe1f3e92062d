{% macro probe_new_messages(
    relation, condition, source_ts=none, parsed=none, first_event_id=none
) -%}
    {%- if not execute -%}
        {{ return({'landed_twice': true, 'source_ts_range': none, 'delivered_before': true}) }}
    {%- elif condition == 'false' -%}
        {{ return({'landed_twice': false, 'source_ts_range': none, 'delivered_before': false}) }}
    {%- endif -%}
    {#- The range of `source_ts` bounds the held rows looked up, and a first or full-refresh
        run holds none: it only counts deliveries, without parsing a message. -#}
    {%- set reads_times = source_ts is not none and is_incremental() -%}
    {%- set probe_sql -%}
        select
            coalesce(max(deliveries), 0) > 1 as landed_twice,
            unix_micros(min(low_source_ts)) as low_source_micros,
            unix_micros(max(high_source_ts)) as high_source_micros
        from (
            select
                count(*) as deliveries,
                min(source_ts) as low_source_ts,
                max(source_ts) as high_source_ts
            from (
                select
                    value,
                    source_name,
                    {{ source_ts if reads_times else 'cast(null as timestamp)' }} as source_ts
                {#- A projection of its own, which Spark does not merge into the one above
                    (whose expression reads the parse several times): one parse a message. #}
                from (
                    select
                        value,
                        source_name{% if reads_times and parsed is not none %},
                        {{ parsed }} as parsed{% endif %}
                    from {{ relation }}
                    where {{ condition }}
                ) as landed
            ) as messages
            group by xxhash64(value), source_name
        ) as deliveries
    {%- endset -%}
    {%- set row = run_query(probe_sql).rows[0] -%}
    {%- set low = row[1] | int if row[1] is not none else none -%}
    {%- set high = row[2] | int if row[2] is not none else none -%}
    {#- Nothing is held on a first or full-refresh run; without a first row's event id or a
        range of `source_ts` the held rows are not looked up here (staging does it). -#}
    {%- set delivered_before = is_incremental() -%}
    {%- if delivered_before and first_event_id is not none and reads_times -%}
        {#- The held rows of the run's range of `source_ts` or with none, as staging's own
            look-up reads them; the messages' ids are few and broadcast. A message staged
            before has its first row held (every message has a row 0, kept whatever its
            rows' fate), so when none of those ids is held, no new row is. -#}
        {%- set held_sql -%}
            select /*+ broadcast(new_messages) */ count(*) > 0 as delivered_before
            from {{ this }} as held
            left semi join (
                select {{ first_event_id }} as event_id
                from {{ relation }}
                where {{ condition }}
            ) as new_messages
                on held.event_id = new_messages.event_id
            where {{ held_rows_of_times('held.source_ts', [low, high]) }}
        {%- endset -%}
        {%- set delivered_before = run_query(held_sql).rows[0][0] -%}
    {%- endif -%}
    {{ return({
        'landed_twice': row[0],
        'source_ts_range': [low, high] if reads_times else none,
        'delivered_before': delivered_before,
    }) }}
{%- endmacro %}
