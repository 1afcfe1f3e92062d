{# The hash bucket (0 .. var cdc_lake_key_buckets - 1) of a primary key within its table:
   the partition the marts rebuild when the key changes. #}
{% macro key_bucket(primary_key) -%}
    cast(pmod(xxhash64({{ primary_key }}), {{ var('cdc_lake_key_buckets') }}) as int)
{%- endmacro %}
