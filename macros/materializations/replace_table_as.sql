{# Replaces `existing` (a table or view of the model, or none) with a parquet table `relation`
   of `sql`, as dbt-spark replaces a parquet table: drop, then create as select, as the
   `main` statement (see _macros.yml). The table and incremental materializations' rebuild. #}
{% macro replace_table_as(existing, relation, sql) -%}
    {%- if existing is not none -%}
        {% do adapter.drop_relation(existing) %}
    {%- endif -%}
    {%- call statement('main') -%}
        {{ create_table_as(false, relation, sql) }}
    {%- endcall -%}
{%- endmacro %}
