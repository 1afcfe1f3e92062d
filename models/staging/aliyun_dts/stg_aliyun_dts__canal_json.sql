{{ config(enabled=is_format_enabled('dts_canal_json')) }}
{%- set landing = source('aliyun_dts', 'dts_canal_json') -%}
{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}
{%- set new_messages = probe_canal_messages(landing, new_loads, 'dts_canal_json') %}

with

raw_messages as (

    select * from {{ landing }}
    where {{ new_loads }}

),

{# The layout (DTS instances created before 2022-03-20 swap `old` and `data`) is the var
   dts_canal_json_legacy_layout, set in dbt_project.yml or with --vars. #}
{{ canal_staged_events(
    'raw_messages',
    'dts_canal_json',
    'dts_canal_json_legacy_layout',
    new_messages=new_messages,
) }}

{{ select_new_rows(new_loads) }}
