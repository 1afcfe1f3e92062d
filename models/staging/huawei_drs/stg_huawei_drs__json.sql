{{ config(enabled=is_format_enabled('drs_json')) }}
{%- set landing = source('huawei_drs', 'drs_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

{# JSON: a delete's rows are in `old`; MySQL timestamp values are epoch seconds. #}
{{ huawei_drs_staged_events(
    'raw_messages',
    'drs_json',
    delete_row_field='old',
    epoch_second_timestamps=true,
) }}

{{ select_new_rows(new_loads) }}
