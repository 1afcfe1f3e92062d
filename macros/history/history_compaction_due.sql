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
