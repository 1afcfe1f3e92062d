{# True when two rows of landing table `relation` where `condition` holds carry the same
   message (text and source), asked of the server before the staging model's query is
   planned. A format whose event ids differ for different messages (see _macros.yml) has no
   two deliveries of one event among a run's rows when this is false, and its staging then
   leaves out the first-delivery window. True while dbt parses and in the linter (`execute`
   false): the compiled query is then the general one. #}
{% macro any_message_landed_twice(relation, condition) -%}
    {%- if not execute -%}
        {{ return(true) }}
    {%- elif condition == 'false' -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set probe_sql -%}
        select 1 from {{ relation }}
        where {{ condition }}
        group by xxhash64(value), source_name
        having count(*) > 1
        limit 1
    {%- endset -%}
    {{ return(run_query(probe_sql) | length > 0) }}
{%- endmacro %}
