{# Overrides dbt-spark's macro of this name, the `insert_overwrite` strategy's statement,
   with macro incremental_insert_sql (see _macros.yml). #}
{% macro get_insert_overwrite_sql(source_relation, target_relation, existing_relation) -%}
    {{ incremental_insert_sql(target_relation, overwrite=true) }}
{%- endmacro %}
