{# The statement of an incremental run (see _macros.yml): empties the model's temporary
   view `source_relation`, then inserts into (or overwrites the partitions of)
   `target_relation` the rows of the model's own SQL. #}
{% macro incremental_insert_sql(source_relation, target_relation, overwrite) -%}
    {%- do run_query(empty_temporary_view(source_relation)) -%}
    {%- set columns = adapter.get_columns_in_relation(target_relation) -%}
    {%- if overwrite %}
    insert overwrite table {{ target_relation }}
    {{ partition_cols(label='partition') }}
    {%- else %}
    insert into table {{ target_relation }}
    {%- endif %}
    select {{ columns | map(attribute='quoted') | join(', ') }}
    from (
        {{ compiled_code }}
    ) as model_rows
{%- endmacro %}
