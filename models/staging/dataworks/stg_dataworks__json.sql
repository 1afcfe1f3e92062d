{{ config(enabled=is_format_enabled('dataworks_json')) }}
{%- set landing = source('dataworks', 'dataworks_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

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

{{ select_new_rows(new_loads) }}
