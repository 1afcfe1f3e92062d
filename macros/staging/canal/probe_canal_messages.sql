{# What a Canal staging model needs to know of its run's messages (the rows of landing
   table `relation` where `condition` holds) before its query is planned: macro
   probe_new_messages given Canal's `source_ts` (macro canal_source_ts, over the message
   parsed for its `es` alone: macro canal_es_only) and the event id of a message's first
   row (macro canal_event_id, over the message's hash). Passed to canal_staged_events as
   `new_messages`. #}
{% macro probe_canal_messages(relation, condition, source_format, numbers_as_sent=false) -%}
    {{ return(probe_new_messages(
        relation,
        condition,
        source_ts=canal_source_ts('parsed'),
        parsed=canal_es_only('value', numbers_as_sent),
        first_event_id=canal_event_id(source_format, 'sha2(value, 256)', '0'),
    )) }}
{%- endmacro %}
