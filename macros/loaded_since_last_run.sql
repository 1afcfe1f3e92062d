{# A condition keeping the rows loaded after the newest load the model already holds (`true`
   on a first or full-refresh run). Read at execution time and inlined as a literal, so the
   query never reads the table it overwrites. `execute` is false while dbt parses, and in the
   SQL linter (.sqlfluff). #}
{% macro loaded_since_last_run(column='loaded_at', held_column=none) -%}
    {%- set newest = none -%}
    {%- if execute and is_incremental() -%}
        {%- set newest_sql -%}
            select date_format(max({{ held_column or column }}), 'yyyy-MM-dd HH:mm:ss.SSSSSS')
            from {{ this }}
        {%- endset -%}
        {%- set newest = run_query(newest_sql).columns[0].values()[0] -%}
    {%- endif -%}
    {{ 'true' if newest is none else column ~ " > timestamp'" ~ newest ~ "'" }}
{%- endmacro %}
