{# Which kinds of version `relation` (int_cdc__row_versions) holds that the history's fold
   leaves out of its plan when none is there: {'truncates': bool, 'partial_changes': bool}.
   One statement asked before the model's query is planned, a scalar subquery per kind, so
   that parquet answers each from its files' metadata where the kind is absent (`is_partial`
   from the statistics, `op` from the dictionaries, as 'truncate' lies between the other
   operations' names). Asked together in one `or`, neither could drop a file and the probe
   read every version. True while dbt parses and in the linter: the compiled query is then
   the general one. #}
{% macro history_version_kinds(relation) -%}
    {%- if not execute -%}
        {{ return({'truncates': true, 'partial_changes': true}) }}
    {%- endif -%}
    {%- set probe_sql -%}
        select
            (select count(*) from (select 1 from {{ relation }} where op = 'truncate' limit 1)),
            (select count(*) from (select 1 from {{ relation }} where is_partial limit 1))
    {%- endset -%}
    {%- set found = run_query(probe_sql).rows[0] -%}
    {{ return({'truncates': found[0] > 0, 'partial_changes': found[1] > 0}) }}
{%- endmacro %}
