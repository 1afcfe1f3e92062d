{# The count of row versions loaded since the base's generation `base_generation` that the
   history delta `relation` holds in its table properties (stored by its post-hook
   record_versions_since_base), from dbt's relation cache: none when it holds no count, or
   one counted against another generation (the base was rebuilt since). #}
{% macro versions_counted_since(relation, base_generation) -%}
    {%- set counted_since = table_property(relation, 'cdc_lake.base_generation') -%}
    {%- set counted = table_property(relation, 'cdc_lake.versions_since_base') -%}
    {%- if none in [base_generation, counted_since, counted]
        or (counted_since | int) != (base_generation | int) -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(counted | int) }}
{%- endmacro %}
