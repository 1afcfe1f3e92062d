{{ config(enabled=is_format_enabled('drs_json_c')) }}

with

raw_messages as (

    select * from {{ source('huawei_drs', 'drs_json_c') }}
    where {{ loaded_since_last_run(source('huawei_drs', 'drs_json_c')) }}

),

{# JSON-C: a delete's rows are in `data`; timestamp values are already text. #}
{{ huawei_drs_staged_events(
    'raw_messages',
    'drs_json_c',
    delete_row_field='data',
    epoch_second_timestamps=false,
) }}

select * from final
