{% macro incremental_insert_sql(target_relation, overwrite) -%}
    {%- if overwrite %}
    insert overwrite table {{ target_relation }}
    {{ partition_cols(label='partition') }}
    {%- else %}
    insert into table {{ target_relation }}
    {%- endif %}
    by name
    select * from (
        {{ compiled_code }}
    ) as model_rows
{%- endmacro %}
