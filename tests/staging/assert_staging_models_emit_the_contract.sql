{# Every enabled staging model has exactly the staging contract's columns (macro
   staged_event_contract), in its order and with its types. A model that drifts fails here,
   one row per difference naming the model and the column, and the models that read staging
   are skipped. #}
{%- set problems = [] -%}
{%- for entry in enabled_cdc_formats() -%}
    {%- set relation = ref(entry.model) -%}
    {%- if execute -%}
        {%- set columns = [] -%}
        {%- for column in adapter.get_columns_in_relation(relation) -%}
            {%- do columns.append([column.name, column.dtype]) -%}
        {%- endfor -%}
        {%- do problems.extend(staging_contract_differences(entry.model, columns)) -%}
    {%- endif -%}
{%- endfor %}

with

differences as (

    {% for model_name, column_name, difference in problems %}
        select
            '{{ model_name }}' as model_name,
            '{{ column_name }}' as staged_column,
            '{{ difference }}' as difference
        union all
    {% endfor %}
    select
        cast(null as string) as model_name,
        cast(null as string) as staged_column,
        cast(null as string) as difference

),

final as (

    select * from differences
    where model_name is not null

)

select * from final
