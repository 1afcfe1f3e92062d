{{ config(enabled=is_format_enabled('dataworks_json')) }}

with

raw_messages as (

    select * from {{ source('dataworks', 'dataworks_json') }}
    where {{ loaded_since_last_run(source('dataworks', 'dataworks_json')) }}

),

decoded as (

    select
        *,
        value as message_json,
        cast(null as string) as decode_error,
        value as raw_value_text

    from raw_messages

),

{{ dataworks_staged_events('decoded', 'dataworks_json') }}

select * from final
