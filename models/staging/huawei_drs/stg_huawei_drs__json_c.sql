{{ config(enabled=is_format_enabled('drs_json_c')) }}
{%- set landing = source('huawei_drs', 'drs_json_c') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

{# JSON-C: a delete's rows are in `data`; timestamp values are already text. #}
{{ huawei_drs_staged_events(
    'raw_messages',
    'drs_json_c',
    delete_row_field='data',
    epoch_second_timestamps=false,
) }}

{{ select_new_rows(new_loads) }}
