{# One row per event_id: the first delivered, and on an incremental run only the event_ids
   the model does not hold yet (a late re-delivery changes nothing). Emits a select. #}
{% macro first_deliveries(relation, order_by) -%}
    select first_delivered.*
    from (
        {{ deduplicate(relation, partition_by='event_id', order_by=order_by) }}
    ) as first_delivered
    {% if is_incremental() -%}
        left anti join {{ this }} as already_held
            on first_delivered.event_id = already_held.event_id
    {%- endif %}
{%- endmacro %}
