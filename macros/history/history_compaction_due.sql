{# 'true' when `int_cdc__row_history_base` (the calling model) is to be rebuilt from every
   version this run, else 'false' (the model then writes nothing). Due on a first or
   full-refresh run, when var `cdc_lake_compact` is true, and when the versions loaded since
   the base was built outnumber var `cdc_lake_compaction_ratio` times the base's rows: below
   that, `int_cdc__row_history_delta` carries them at a cost that follows what is new, and
   readers merge the two. No statement: both counts are table properties, read from dbt's
   relation cache (macro table_property): the base's rows and generation, stored by its
   post-hook record_history_base_size, and the versions loaded since that generation, stored
   by the delta's post-hook record_versions_since_base after each of its runs (macro
   versions_counted_since; so a run decides on the versions loaded up to the run before
   it). Where the delta's count is missing or was counted against another generation, one
   query counts the versions since the base's newest partition. A base without its row
   count is due once. #}
{% macro history_compaction_due(row_versions) -%}
    {%- if not execute or not is_incremental() or var('cdc_lake_compact') -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set base_rows = table_property(this, 'cdc_lake.row_count') -%}
    {%- if base_rows is none -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set counted = versions_counted_since(
        history_delta_relation(), table_property(this, 'cdc_lake.generation')
    ) -%}
    {%- set pending = counted.versions if counted is not none else none -%}
    {%- if pending is none -%}
        {%- set generations = partition_generations(this) -%}
        {%- if not generations -%}
            {{ return('true') }}
        {%- endif -%}
        {%- set pending = run_query(
            'select count(*) from ' ~ row_versions
            ~ ' where loaded_at > timestamp_micros(' ~ generations | max ~ ')'
        ).rows[0][0] -%}
    {%- endif -%}
    {%- set limit = var('cdc_lake_compaction_ratio') * (base_rows | int) -%}
    {{ return('true' if pending > limit else 'false') }}
{%- endmacro %}
