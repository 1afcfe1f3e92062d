{#- Every enabled format's staging model (macro cdc_formats, var cdc_lake_formats). -#}
{%- set staging_models = enabled_cdc_formats() | map(attribute='model') | list -%}

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
