{% macro cdc_typed_current_state(table_key, column_types=none) -%}
    {%- set table_key_text = table_key | lower | replace("\\", "\\\\") | replace("'", "\\'") -%}
    {%- set typed_values = [] -%}
    {%- for column_name, spark_type, source_type in cdc_typed_columns(table_key, column_types) -%}
        {%- set map_key = column_name | replace("\\", "\\\\") | replace("'", "\\'") -%}
        {%- do typed_values.append(
            typed_value_from_text("row_data['" ~ map_key ~ "']", spark_type, source_type)
            ~ " as `" ~ column_name | replace('`', '``') ~ "`,\n        "
        ) -%}
    {%- endfor -%}
    {#- The base's generation from the metastore (its partitions: no scan), then the newest
        delta generation after it that holds the table (parquet skips the row groups of
        other tables: the delta's files are sorted by table). -#}
    {%- set base = ref('int_cdc__row_history_base') -%}
    {%- set base_generation = newest_generation(base) -%}
    {%- set inputs = [
        'select ' ~ base_generation,
        'select max(generation) from ' ~ ref('int_cdc__row_history_delta')
        ~ ' where generation > ' ~ base_generation
        ~ " and table_key = '" ~ table_key_text ~ "'",
    ] %}

    {%- set query %}

with

current_state as (

    select * from {{ ref('cdc_current_state') }}

),

live_rows as (

    select * from current_state
    where table_key = '{{ table_key_text }}' and not is_deleted

),

final as (

    select
        ---------- the source row, typed
        {{ typed_values | join('') }}
        ---------- where it came from
        primary_key as _cdc_primary_key,
        last_op as _cdc_last_op,
        last_source_ts as _cdc_last_source_ts,
        last_ordering_key as _cdc_last_ordering_key

    from live_rows

)

select * from final

    {%- endset %}

    {{ return(with_build_signature(query, inputs)) }}
{%- endmacro %}
