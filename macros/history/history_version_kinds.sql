{% macro history_version_kinds(relation) -%}
    {%- if not execute -%}
        {{ return({'truncates': true, 'partial_changes': true}) }}
    {%- endif -%}
    {%- set counts_sql -%}
        select
            (select count(*) from {{ relation }} where op = 'truncate'),
            (select count(*) from {{ relation }} where is_partial)
    {%- endset -%}
    {%- set found = run_query(counts_sql).rows[0] -%}
    {{ return({'truncates': found[0] > 0, 'partial_changes': found[1] > 0}) }}
{%- endmacro %}
