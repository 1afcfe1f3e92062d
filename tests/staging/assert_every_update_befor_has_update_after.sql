{{ config(severity='warn') }}

{# DataWorks / DataHub Blob: an UPDATE_BEFOR message must have an UPDATE_AFTER with the same
   sequenceId. Staging stages the paired ones as `update_half` and rejects the rest: this test
   lists those. #}
{%- set dataworks_staging_models = ['stg_dataworks__json', 'stg_datahub__blob'] %}

with

{% for staging_model in dataworks_staging_models %}
    {{ staging_model }} as (

        select * from {{ ref(staging_model) }}

    ),
{% endfor %}

unpaired as (

    {% for staging_model in dataworks_staging_models %}
        select
            source_format,
            table_key,
            event_sequence,
            rejection_reason,
            source_file,
            kafka_offset
        from {{ staging_model }}
        where source_op = 'UPDATE_BEFOR' and event_kind = 'rejected'
        {% if not loop.last %}union all{% endif %}
    {% endfor %}

)

select * from unpaired
