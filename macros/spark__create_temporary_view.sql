{# Overrides dbt-spark's macro of this name (see _macros.yml): the temporary view dbt-spark's
   incremental materialization makes before an incremental run is a one-row placeholder, not
   the model's query, which macro incremental_insert_sql runs itself. Any other temporary
   view (dbt's unit tests make them) is dbt-spark's. #}
{% macro spark__create_temporary_view(relation, compiled_code) -%}
    {%- if model.resource_type == 'model' and config.get('materialized') == 'incremental' %}
    create or replace temporary view {{ relation }} as
    select 1 as placeholder
    {%- else %}
        {{ dbt.spark__create_temporary_view(relation, compiled_code) }}
    {%- endif %}
{%- endmacro %}
