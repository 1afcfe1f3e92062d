{# A Canal row's event id: its format, its message's hash and its index in the message
   (macro event_id). One definition for staging's rows and for the probe that looks a run's
   messages up among the held rows by the id of their first row (macro
   probe_canal_messages): the two must agree. #}
{% macro canal_event_id(source_format, message_hash, row_index) -%}
    {{ event_id(["'" ~ source_format ~ "'", message_hash, row_index]) }}
{%- endmacro %}
