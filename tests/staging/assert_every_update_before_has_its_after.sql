{{ config(severity='warn') }}

{# The first half of an update sent as two messages is staged as an `update_half`; its image
   reaches the change log only through the second half, which carries it as `before_row`.
   This test lists the first halves no second half has claimed (yet: the other half may come
   in a later load, and pairs then). DataWorks, DataHub Blob and Tuple pair the halves by
   sequence id; SharePlex pairs an UPDATE AFTER with the UPDATE BEFORE just before it in
   its transaction, in seq order. #}
{%- set models_paired_by_sequence = [] -%}
{%- for entry in enabled_cdc_formats() -%}
    {%- if entry.format in ('dataworks_json', 'datahub_blob', 'datahub_tuple') -%}
        {%- do models_paired_by_sequence.append(entry.model) -%}
    {%- endif -%}
{%- endfor -%}
{%- set shareplex_enabled = is_format_enabled('dts_shareplex_json') %}

with

{% for staging_model in models_paired_by_sequence %}
    {{ staging_model }} as (

        select * from {{ ref(staging_model) }}

    ),
{% endfor %}

{% if shareplex_enabled %}
    shareplex as (

        select * from {{ ref('stg_aliyun_dts__shareplex_json') }}

    ),
{% endif %}

{% for staging_model in models_paired_by_sequence %}
    {{ staging_model }}_unpaired as (

        select
            first_halves.source_format,
            first_halves.table_key,
            first_halves.event_sequence,
            first_halves.source_file,
            first_halves.kafka_offset,
            first_halves.loaded_at

        from {{ staging_model }} as first_halves
        left anti join {{ staging_model }} as second_halves
            on
                second_halves.event_kind = 'change'
                and second_halves.op = 'update'
                and first_halves.table_key = second_halves.table_key
                and first_halves.event_sequence = second_halves.event_sequence
        where first_halves.event_kind = 'update_half'

    ),
{% endfor %}

{% if shareplex_enabled %}
    {# One row per half (a half delivered twice is one half), ordered as staging pairs them. #}
    shareplex_halves as (

        select
            table_key,
            transaction_id,
            try_cast(element_at(split(event_sequence, ':'), -1) as bigint) as seq_number,
            event_kind = 'change' as is_update_after,
            min_by(event_sequence, loaded_at) as event_sequence,
            min_by(source_file, loaded_at) as source_file,
            min_by(kafka_offset, loaded_at) as kafka_offset,
            min(loaded_at) as loaded_at

        from shareplex
        where event_kind = 'update_half' or (event_kind = 'change' and source_op = 'UPDATE AFTER')
        group by 1, 2, 3, 4

    ),

    shareplex_unpaired as (

        select
            'dts_shareplex_json' as source_format,
            table_key,
            event_sequence,
            source_file,
            kafka_offset,
            loaded_at

        from (
            select
                *,
                lead(is_update_after) over (
                    partition by table_key, transaction_id order by seq_number, is_update_after
                ) as next_is_update_after
            from shareplex_halves
        ) as with_next_half
        where not is_update_after and coalesce(next_is_update_after, false) = false

    ),
{% endif %}

final as (

    {% for staging_model in models_paired_by_sequence %}
        select * from {{ staging_model }}_unpaired
        union all
    {% endfor %}
    {% if shareplex_enabled %}
        select * from shareplex_unpaired
    {% else %}
        select
            cast(null as string) as source_format,
            cast(null as string) as table_key,
            cast(null as string) as event_sequence,
            cast(null as string) as source_file,
            cast(null as bigint) as kafka_offset,
            cast(null as timestamp) as loaded_at
        where false
    {% endif %}

)

select * from final
