with

raw_messages as (

    select * from {{ source('canal', 'canal_json') }}

),

{{ canal_staged_events('raw_messages', 'canal_json') }}

select * from final
