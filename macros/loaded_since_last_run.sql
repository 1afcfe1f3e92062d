{# A condition keeping the rows of `relation` loaded after the newest load the model already
   holds: `true` on a first or full-refresh run, `false` when `relation` has nothing newer.
   Read at execution time and inlined as literals, so the query never reads the table it
   overwrites, and a run with nothing new hands Spark a plan it folds to nothing (no scan of
   the history, no join, no UDF) instead of one that finds out by reading. The probe reads
   only the new rows: the landing tables are partitioned by `loaded_at`, and appended tables
   keep each run's rows in their own files, whose statistics let Spark skip the older ones.
   `execute` is false while dbt parses, and in the SQL linter (.sqlfluff). #}
{% macro loaded_since_last_run(relation, column='loaded_at', held_column=none) -%}
    {%- set newest = none -%}
    {%- set has_newer = true -%}
    {%- if execute and is_incremental() -%}
        {%- set newest_sql -%}
            select date_format(max({{ held_column or column }}), 'yyyy-MM-dd HH:mm:ss.SSSSSS')
            from {{ this }}
        {%- endset -%}
        {%- set newest = run_query(newest_sql).columns[0].values()[0] -%}
        {%- set has_newer = newest is none
            or has_rows(relation, column ~ " > timestamp'" ~ newest ~ "'") -%}
    {%- endif -%}
    {%- if not has_newer -%}
        false
    {%- elif newest is none -%}
        true
    {%- else -%}
        {{ column }} > timestamp'{{ newest }}'
    {%- endif -%}
{%- endmacro %}
