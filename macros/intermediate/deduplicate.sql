{% macro deduplicate(relation, partition_by, order_by) -%}
    select * except (duplicate_rank)
    from (
        select
            *,
            row_number() over (partition by {{ partition_by }} order by {{ order_by }})
                as duplicate_rank
        from {{ relation }}
    ) as ranked
    where duplicate_rank = 1
{%- endmacro %}
