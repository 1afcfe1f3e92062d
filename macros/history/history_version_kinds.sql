{# Which kinds of version `relation` (int_cdc__row_versions) holds that the history's fold
   leaves out of its plan when none is there: {'truncates': bool, 'partial_changes': bool}.
   One statement asked before the model's query is planned (macro version_kind_counts). True
   while dbt parses and in the linter: the compiled query is then the general one. #}
{% macro history_version_kinds(relation) -%}
    {%- if not execute -%}
        {{ return({'truncates': true, 'partial_changes': true}) }}
    {%- endif -%}
    {%- set found = run_query('select ' ~ version_kind_counts(relation)).rows[0] -%}
    {{ return({'truncates': found[0] > 0, 'partial_changes': found[1] > 0}) }}
{%- endmacro %}
