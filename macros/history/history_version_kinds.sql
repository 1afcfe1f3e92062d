{% macro history_version_kinds(relation) -%}
    {%- if not execute -%}
        {{ return({'truncates': true, 'partial_changes': true}) }}
    {%- endif -%}
    {%- set found = run_query('select ' ~ version_kind_counts(relation)).rows[0] -%}
    {{ return({'truncates': found[0] > 0, 'partial_changes': found[1] > 0}) }}
{%- endmacro %}
