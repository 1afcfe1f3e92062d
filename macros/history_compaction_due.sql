{# 'true' when `int_cdc__row_history_base` (the calling model) is to be rebuilt from every
   version this run, else 'false' (the model then writes nothing). Due on a first or
   full-refresh run, when var `cdc_lake_compact` is true, and when the versions loaded since
   the base was built outnumber var `cdc_lake_compaction_ratio` times the base's rows: below
   that, `int_cdc__row_history_delta` carries them at a cost that follows what is new, and
   readers merge the two. #}
{% macro history_compaction_due(row_versions) -%}
    {%- if not execute or not is_incremental() or var('cdc_lake_compact') -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set base_sql -%}
        select count(*), max(generation) from {{ this }}
    {%- endset -%}
    {%- set base = run_query(base_sql).rows[0] -%}
    {%- if base[1] is none -%}
        {{ return('true') }}
    {%- endif -%}
    {%- set pending_sql -%}
        select count(*) from {{ row_versions }}
        where loaded_at > timestamp_micros({{ base[1] }})
    {%- endset -%}
    {%- set pending = run_query(pending_sql).rows[0][0] -%}
    {{ return('true' if pending > var('cdc_lake_compaction_ratio') * base[0] else 'false') }}
{%- endmacro %}
