{# The `source_ts` staging gives every row of a parsed Canal message (`message`, a SQL
   expression whose `es` field is read): the time of its `es` (macro canal_es_ms, as
   canal_staged_events reads it). For the probe of the run's messages (macro
   probe_new_messages), over a message parsed for its `es` alone (macro canal_es_only): the
   range it finds bounds the held rows staging looks the new event ids up in. #}
{% macro canal_source_ts(message) -%}
    {{ epoch_ms_to_timestamp(canal_es_ms(message)) }}
{%- endmacro %}
