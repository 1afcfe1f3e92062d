{# 'true' when `int_cdc__row_history_base` (the calling model) is to be rebuilt from every
   version this run, else 'false' (the model then writes nothing). Due on a first or
   full-refresh run, when var `cdc_lake_compact` is true, and when the versions loaded since
   the base was built outnumber var `cdc_lake_compaction_ratio` times the base's rows: below
   that, `int_cdc__row_history_delta` carries them at a cost that follows what is new, and
   readers merge the two. The base's generation comes from the metastore (its partitions),
   its rows from the count its post-hook record_row_count stored (macro table_property); a
   base without that count (built before it was recorded) is due once. One query: the
   versions since. #}
{% macro history_compaction_due(row_versions) -%}
    {%- if not execute or not is_incremental() or var('cdc_lake_compact') -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set generations = partition_generations(this) -%}
    {%- set base_rows = table_property(this, 'cdc_lake.row_count') -%}
    {%- if not generations or base_rows is none -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set pending_sql -%}
        select count(*) from {{ row_versions }}
        where loaded_at > timestamp_micros({{ generations | max }})
    {%- endset -%}
    {%- set pending = run_query(pending_sql).rows[0][0] -%}
    {%- set limit = var('cdc_lake_compaction_ratio') * (base_rows | int) -%}
    {{ return('true' if pending > limit else 'false') }}
{%- endmacro %}
