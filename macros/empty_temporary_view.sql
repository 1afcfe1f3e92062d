{# Empties `temporary_view`, the view dbt-spark's incremental materialization makes of a
   model's SQL (see _macros.yml for why it is replaced by a one-row view, not dropped). #}
{% macro empty_temporary_view(temporary_view) -%}
    create or replace temporary view {{ temporary_view }} as
    select 1 as emptied
{%- endmacro %}
