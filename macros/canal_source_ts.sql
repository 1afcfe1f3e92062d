{# The `source_ts` staging gives every row of the Canal message in landing column `value`,
   for the probe of the run's messages (macro probe_new_messages): the range it finds bounds
   the held rows staging looks the new event ids up in. Only `es` is parsed (canal_es_ms, as
   canal_staged_events reads it), not the row images: the same parser reads the same field,
   so a message whose whole parse gives an `es` gives this one the same. #}
{% macro canal_source_ts(value, numbers_as_sent=false) -%}
    {%- set message -%}
        from_json({{ json_numbers_as_sent(value) if numbers_as_sent else value }}, 'es string')
    {%- endset -%}
    {{ epoch_ms_to_timestamp(canal_es_ms(message)) }}
{%- endmacro %}
