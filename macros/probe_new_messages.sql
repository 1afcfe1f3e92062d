{# What staging needs to know of the run's messages (the rows of landing table `relation`
   where `condition` holds) before its query is planned, asked in one pass over them:
   `landed_twice`, whether two carry the same message (text and source); and, given the
   format's `source_ts` of a landing row, `source_ts_range`: the lowest and highest as
   microseconds since 1970 (both none when no message has one), else none. `source_ts` is a
   SQL expression over the landing columns and `parsed`, the column the expression `parsed`
   computes once per row (the message parsed for what `source_ts` reads). A format whose
   event ids differ for different messages has no two deliveries of one event among a run's
   rows when `landed_twice` is false, and its staging then leaves out the first-delivery
   window; one whose event id fixes `source_ts` looks the new events up only among the held
   rows of that range (see macro staged_event_projection). While dbt parses and in the
   linter (`execute` false): the answer that keeps the general query. #}
{% macro probe_new_messages(relation, condition, source_ts=none, parsed=none) -%}
    {%- if not execute -%}
        {{ return({'landed_twice': true, 'source_ts_range': none}) }}
    {%- elif condition == 'false' -%}
        {{ return({'landed_twice': false, 'source_ts_range': none}) }}
    {%- endif -%}
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
                    {{ source_ts if source_ts is not none else 'cast(null as timestamp)' }}
                        as source_ts
                {#- A projection of its own: Spark does not merge it into the one above,
                    whose expression reads the parse several times (from_json is costly),
                    so each message is parsed once. 10,000 messages: 0.29 s against 0.36 s
                    with the parse written into `source_ts`. #}
                from (
                    select
                        value,
                        source_name{% if parsed is not none %},
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
    {{ return({
        'landed_twice': row[0],
        'source_ts_range': [low, high] if source_ts is not none else none,
    }) }}
{%- endmacro %}
