{% macro canal_event_id(source_format, message_hash, row_index) -%}
    {{ event_id(["'" ~ source_format ~ "'", message_hash, row_index]) }}
{%- endmacro %}
