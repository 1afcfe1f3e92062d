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
            {#- Compared with a subquery's value, Spark would list the files of every
                partition (every load ever landed) before applying the filter. -#}
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
