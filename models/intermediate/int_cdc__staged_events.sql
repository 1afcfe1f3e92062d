{{ config(materialized="view") }}

{# Adding a vendor format: add its staging model to this list (nothing after it changes). #}
{%- set staging_models = [
    'stg_dataworks__json',
    'stg_datahub__blob',
    'stg_datahub__tuple',
    'stg_aliyun_dts__shareplex_json',
    'stg_canal__json',
    'stg_aliyun_dts__canal_json',
    'stg_huawei_drs__json',
    'stg_huawei_drs__json_c',
    'stg_huawei_drs__mongo',
    'stg_aliyun_dts__avro',
    'stg_lindorm__json',
    'stg_debezium__json',
] -%}

with

{% for staging_model in staging_models %}
    {{ staging_model }} as (

        select * from {{ ref(staging_model) }}

    ),

{% endfor %}
final as (

    {% for staging_model in staging_models %}
        select
            {{ staged_event_columns() | join(',\n        ') }}
        from {{ staging_model }}
        {% if not loop.last %}
            union all
        {% endif %}
    {% endfor %}

)

select * from final
