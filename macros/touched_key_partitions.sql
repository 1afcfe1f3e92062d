{# The (table_key, key_bucket) partitions of `relation` holding versions loaded since the
   model's last run; a truncate (bucket -1) touches every bucket of its table. Every partition
   on a first or full-refresh run. Emits a select. #}
{% macro touched_key_partitions(relation, held_column=none) -%}
    {%- set since_last_run = loaded_since_last_run('loaded_at', held_column) -%}
    select distinct
        table_key,
        key_bucket
    from {{ relation }}
    where
        key_bucket >= 0
        and (
            {{ since_last_run }}
            or table_key in (
                select table_key
                from {{ relation }}
                where key_bucket = -1 and {{ since_last_run }}
            )
        )
{%- endmacro %}
