{# Post-hook of `int_cdc__row_history_base`: after a run that rebuilt it, stores its row count
   and its generation as its table properties `cdc_lake.row_count` and `cdc_lake.generation`
   (one query: parquet footers and partition values answer these), which macro
   history_compaction_due reads from the metastore rather than counting the table; and, as
   the run's query states them (macro version_kinds_note), whether the versions it folded
   hold a truncate or a partial change (`cdc_lake.truncates`, `cdc_lake.partial_changes`),
   which macro history_delta_kinds reads; and the highest `ordering_key` of its versions
   (`cdc_lake.newest_ordering_key`: empty for none, `unknown` if not an ordering key, macro
   ordering_key_text; the one column the query reads), which macro history_in_order reads.
   Nothing after a run that wrote nothing. #}
{% macro record_history_base_size(relation) -%}
    {%- if execute and not is_writing_nothing(relation) -%}
        {#- Prefixed: digits and dots alone may come back as a number. -#}
        {%- set size = run_query(
            "select count(*), max(generation), 'k' || coalesce(max(valid_from_ordering_key), '')"
            ~ ' from ' ~ relation
        ).rows[0] -%}
        {%- set kinds = modules.re.search(
            '/\\* cdc_lake\\.version_kinds: truncates (true|false); '
            ~ 'partial changes (true|false) \\*/',
            model.compiled_code or ''
        ) -%}
        {%- set recorded = [
            "'cdc_lake.row_count' = '" ~ size[0] ~ "'",
            "'cdc_lake.generation' = '" ~ (size[1] or 0) ~ "'",
        ] -%}
        {%- set newest = ordering_key_text((size[2] | string)[1:]) -%}
        {%- do recorded.append("'cdc_lake.newest_ordering_key' = '" ~ (
            newest if newest is not none else 'unknown'
        ) ~ "'") -%}
        {%- if kinds -%}
            {%- do recorded.append("'cdc_lake.truncates' = '" ~ kinds.group(1) ~ "'") -%}
            {%- do recorded.append("'cdc_lake.partial_changes' = '" ~ kinds.group(2) ~ "'") -%}
        {%- endif %}
        alter table {{ relation }} set tblproperties ({{ recorded | join(', ') }})
    {%- endif -%}
{%- endmacro %}
