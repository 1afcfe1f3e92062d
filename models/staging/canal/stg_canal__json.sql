{{ config(enabled=is_format_enabled('canal_json')) }}
{%- set landing = source('canal', 'canal_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}
{%- set new_messages = probe_canal_messages(
    landing, new_loads, 'canal_json', var('canal_json_numbers_as_sent')
) %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

{{ canal_staged_events(
    'raw_messages',
    'canal_json',
    numbers_as_sent=var('canal_json_numbers_as_sent'),
    new_messages=new_messages,
) }}

{{ select_new_rows(new_loads) }}
