{# True when `relation` has a row where `condition` holds, asked of the server before the
   model's query is planned, so that the query can leave out work no row needs (parquet
   statistics let Spark answer from few files). True while dbt parses and in the linter
   (`execute` false): the compiled query is then the general one. #}
{% macro has_rows(relation, condition) -%}
    {%- if not execute -%}
        {{ return(true) }}
    {%- endif -%}
    {%- set probe_sql = 'select 1 from ' ~ relation ~ ' where ' ~ condition ~ ' limit 1' -%}
    {{ return(run_query(probe_sql) | length > 0) }}
{%- endmacro %}
