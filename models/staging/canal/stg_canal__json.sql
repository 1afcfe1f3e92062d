with

raw_messages as (

    select * from {{ source('canal', 'canal_json') }}
    where {{ loaded_since_last_run() }}

),

{{ canal_staged_events('raw_messages', 'canal_json') }}

select * from final
