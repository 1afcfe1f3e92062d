{{ config(enabled=is_format_enabled('canal_json')) }}

with

raw_messages as (

    select * from {{ source('canal', 'canal_json') }}
    where {{ loaded_since_last_run(source('canal', 'canal_json')) }}

),

{{ canal_staged_events(
    'raw_messages', 'canal_json', numbers_as_sent=var('canal_json_numbers_as_sent')
) }}

select * from final
