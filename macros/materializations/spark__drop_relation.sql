{# Overrides dbt-spark's macro of this name: see _materializations__macros.yml. #}
{% macro spark__drop_relation(relation) -%}
    {%- if relation.identifier.endswith('__dbt_tmp') and not relation.include_policy.schema %}
        {% call statement('drop_relation', auto_begin=False) -%}
            create or replace temporary view {{ relation.identifier }} as
            select 1 as placeholder
        {%- endcall %}
    {%- else %}
        {{ dbt.spark__drop_relation(relation) }}
    {%- endif %}
{%- endmacro %}
