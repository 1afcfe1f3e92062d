{# Which kinds of version `relation` (int_cdc__row_versions) holds that the history's fold
   leaves out of its plan when none is there: {'truncates': bool, 'partial_changes': bool}.
   A probe (macro has_rows) for each kind: parquet answers each from its files' metadata where
   the kind is absent (`is_partial` from the statistics, `op` from the dictionaries, as
   'truncate' lies between the other operations' names). Asked together in one `or`, neither
   could drop a file and the probe read every version. True while dbt parses and in the
   linter. #}
{% macro history_version_kinds(relation) -%}
    {{ return({
        'truncates': has_rows(relation, "op = 'truncate'"),
        'partial_changes': has_rows(relation, 'is_partial'),
    }) }}
{%- endmacro %}
