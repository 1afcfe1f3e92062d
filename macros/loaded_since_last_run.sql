{# A condition keeping the rows of `relation` loaded after the newest load the model already
   holds: `true` on a first or full-refresh run, `false` when `relation` has nothing newer,
   else the newer loads by name (macro loaded_after: one probe, which reads only the new rows,
   and a query whose generated code does not change with the watermark). Read at execution
   time and inlined, so the query never reads the table it overwrites, and a run with nothing
   new hands Spark a plan it folds to nothing (no scan of the history, no join, no UDF)
   instead of one that finds out by reading. `execute` is false while dbt parses, and in the
   SQL linter (.sqlfluff). #}
{% macro loaded_since_last_run(relation, column='loaded_at', held_column=none) -%}
    {%- if execute and is_incremental() -%}
        {%- set newest_sql -%}
            select date_format(max({{ held_column or column }}), 'yyyy-MM-dd HH:mm:ss.SSSSSS')
            from {{ this }}
        {%- endset -%}
        {%- set newest = run_query(newest_sql).columns[0].values()[0] -%}
        {%- if newest is not none -%}
            {{ return(loaded_after(relation, "timestamp'" ~ newest ~ "'", column)) }}
        {%- endif -%}
    {%- endif -%}
    true
{%- endmacro %}
