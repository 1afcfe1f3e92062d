{{ config(severity='warn') }}

{# DataWorks / DataHub Blob: an UPDATE_BEFOR message must have an UPDATE_AFTER with the same
   sequenceId; staging rejects the ones that do not, and this test lists them. #}
with

stg_dataworks__json as (

    select * from {{ ref('stg_dataworks__json') }}

),

stg_datahub__blob as (

    select * from {{ ref('stg_datahub__blob') }}

),

unpaired as (

    select
        source_format,
        table_key,
        event_sequence,
        rejection_reason,
        source_file,
        kafka_offset
    from stg_dataworks__json
    where source_op = 'UPDATE_BEFOR'

    union all

    select
        source_format,
        table_key,
        event_sequence,
        rejection_reason,
        source_file,
        kafka_offset
    from stg_datahub__blob
    where source_op = 'UPDATE_BEFOR'

)

select * from unpaired
