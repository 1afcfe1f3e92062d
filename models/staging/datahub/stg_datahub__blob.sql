{{ config(enabled=is_format_enabled('datahub_blob')) }}
{%- set landing = source('datahub', 'datahub_blob') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

{# A Blob record is the DataWorks JSON as UTF-8 bytes; other bytes are kept as base64. #}
decoded as (

    select
        *,
        case
            when is_valid_utf8(cast(value as string)) then cast(value as string)
        end as message_json,
        case
            when value is not null and not is_valid_utf8(cast(value as string))
                then 'Blob record is not UTF-8 text'
        end as decode_error,
        case
            when is_valid_utf8(cast(value as string)) then cast(value as string)
            else base64(value)
        end as raw_value_text

    from raw_messages

),

{{ dataworks_staged_events('decoded', 'datahub_blob') }}

{{ select_new_rows(new_loads) }}
