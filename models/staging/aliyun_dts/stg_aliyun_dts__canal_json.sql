{{ config(enabled=is_format_enabled('dts_canal_json')) }}

with

raw_messages as (

    select * from {{ source('aliyun_dts', 'dts_canal_json') }}
    where {{ loaded_since_last_run(source('aliyun_dts', 'dts_canal_json')) }}

),

{# The layout (DTS instances created before 2022-03-20 swap `old` and `data`) is the var
   dts_canal_json_legacy_layout, set in dbt_project.yml or with --vars. #}
{{ canal_staged_events('raw_messages', 'dts_canal_json', 'dts_canal_json_legacy_layout') }}

select * from final
