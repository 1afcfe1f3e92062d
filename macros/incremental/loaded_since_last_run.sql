{# A condition keeping the rows of `relation` loaded after the newest load the model already
   holds: `true` on a first or full-refresh run, `false` when `relation` has nothing newer,
   else the newer loads by name (macro loaded_after: one probe, which reads only the new rows
   and the model's newest load in one statement, and a query whose generated code does not
   change with the watermark). A model that holds no row yet takes every load. Read at
   execution time and inlined, so the query never reads the table it overwrites, and a run
   with nothing new writes nothing (macro select_new_rows) instead of planning a query that
   finds out by reading. `partitioned`: `relation` is partitioned by `column` (a landing
   table), and the newest load held is asked first, by a statement of its own, so that the
   probe compares with a value Spark prunes partitions by when it plans. An appended model
   that recorded the loads it has read (macro recorded_loads) asks for no newest load: it
   probes for the loads after its record, and when every table of `parents` (the models
   `relation` reads) recorded its own loads that far back, it takes theirs without a probe.
   `execute` is false while dbt parses, and in the SQL linter (.sqlfluff). #}
{% macro loaded_since_last_run(
    relation, column='loaded_at', held_column=none, partitioned=false, parents=none
) -%}
    {%- if execute and is_incremental() -%}
        {%- set own = recorded_loads(
            table_properties_in(load_relation(this).information or '')
        ) -%}
        {%- set recorded = loads_recorded_after(own.through, parents) -%}
        {#- The coalesce inside: Spark pushes a scalar subquery's value down to parquet as a
            literal, so the probe skips the files and row groups loaded before it. -#}
        {%- set held_through -%}
            (
                select coalesce(max({{ held_column or column }}), timestamp'0001-01-01 00:00:00')
                from {{ this }}
            )
        {%- endset -%}
        {#- With a record: the loads after it, a literal. -#}
        {%- set after = held_through if own.through is none else (
            'timestamp_micros(' ~ own.through ~ ')'
        ) -%}
        {%- if partitioned -%}
            {#- Compared with a subquery's value, the partition filter is applied only after
                Spark has listed the files of every partition, with a job of one task per
                partition past 32 (spark.sql.sources.parallelPartitionDiscovery.threshold):
                every run listed every load ever landed (156 loads: 0.63 s against 0.11 s
                with the value, whose statement takes 0.15 s). -#}
            {%- set held_micros = own.through if own.through is not none else run_query(
                'select unix_micros(' ~ held_through ~ ')'
            ).columns[0].values()[0] | int -%}
            {{ return(loaded_after(relation, 'timestamp_micros(' ~ held_micros ~ ')', column)) }}
        {%- endif -%}
        {{ return(
            load_times_condition(recorded, column) if recorded is not none
            else loaded_after(relation, after, column)
        ) }}
    {%- endif -%}
    true
{%- endmacro %}
