{# 'true' when `int_cdc__row_history_base` (the calling model) is to be rebuilt from every
   version this run, else 'false' (the model then writes nothing). Due on a first or
   full-refresh run, when var `cdc_lake_compact` is true, and when the versions loaded since
   the base was built outnumber var `cdc_lake_compaction_ratio` times the base's rows: below
   that, `int_cdc__row_history_delta` carries them at a cost that follows what is new, and
   readers merge the two. The base's generation and rows come from the metastore (its
   partitions, and the count its post-hook record_row_count stored); a base without that
   count (built before it was recorded) is due once. One query: the versions since. #}
{% macro history_compaction_due(row_versions) -%}
    {%- if not execute or not is_incremental() or var('cdc_lake_compact') -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set generations = partition_generations(this) -%}
    {%- set properties = run_query('show tblproperties ' ~ this).rows -%}
    {%- set row_counts = properties | selectattr(0, 'equalto', 'cdc_lake.row_count') | list -%}
    {%- if not generations or not row_counts -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set pending_sql -%}
        select count(*) from {{ row_versions }}
        where loaded_at > timestamp_micros({{ generations | max }})
    {%- endset -%}
    {%- set pending = run_query(pending_sql).rows[0][0] -%}
    {%- set base_rows = row_counts[0][1] | int -%}
    {{ return('true' if pending > var('cdc_lake_compaction_ratio') * base_rows else 'false') }}
{%- endmacro %}
