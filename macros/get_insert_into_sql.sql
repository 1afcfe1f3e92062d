{# Overrides dbt-spark's macro of this name, the `append` strategy's statement, with macro
   incremental_insert_sql (see _macros.yml). #}
{% macro get_insert_into_sql(source_relation, target_relation) -%}
    {{ incremental_insert_sql(target_relation, overwrite=false) }}
{%- endmacro %}
