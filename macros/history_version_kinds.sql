{# Which kinds of version `relation` (int_cdc__row_versions) holds that the history's fold
   leaves out of its plan when none is there: {'truncates': bool, 'partial_changes': bool}.
   One probe (macro has_rows) when it holds neither, the usual stream of full row images;
   one more for each kind only when it holds either. True while dbt parses and in the
   linter. #}
{% macro history_version_kinds(relation) -%}
    {%- set either = has_rows(relation, "op = 'truncate' or is_partial") -%}
    {{ return({
        'truncates': either and has_rows(relation, "op = 'truncate'"),
        'partial_changes': either and has_rows(relation, 'is_partial'),
    }) }}
{%- endmacro %}
