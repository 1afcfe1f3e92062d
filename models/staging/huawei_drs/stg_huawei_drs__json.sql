{{ config(enabled=is_format_enabled('drs_json')) }}

with

raw_messages as (

    select * from {{ source('huawei_drs', 'drs_json') }}
    where {{ loaded_since_last_run(source('huawei_drs', 'drs_json')) }}

),

{# JSON: a delete's rows are in `old`; MySQL timestamp values are epoch seconds. #}
{{ huawei_drs_staged_events(
    'raw_messages',
    'drs_json',
    delete_row_field='old',
    epoch_second_timestamps=true,
) }}

select * from final
