{{ config(enabled=is_format_enabled('canal_json')) }}

with

raw_messages as (

    select * from {{ source('canal', 'canal_json') }}
    where {{ loaded_since_last_run(source('canal', 'canal_json')) }}

),

{{ canal_staged_events('raw_messages', 'canal_json') }},

{{ staged_event_projection(
    'renamed',
    'canal_json',
    absent=[
        'schema_name', 'is_partial', 'unset_columns', 'source_log_position', 'ddl_meta',
        'ddl_summary', 'ddl_meta_error',
    ],
) }}

select * from final
