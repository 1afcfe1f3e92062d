{# The Canal message in landing column `value` parsed for its `es` alone, not its row images:
   what the probe of the run's messages (macro probe_new_messages) reads `source_ts` from
   (macro canal_source_ts). The same parser reads the same field (the last of its
   duplicates, as in the whole message), so a message whose whole parse gives an `es` gives
   this one the same. #}
{% macro canal_es_only(value, numbers_as_sent=false) -%}
    from_json({{ json_numbers_as_sent(value) if numbers_as_sent else value }}, 'es string')
{%- endmacro %}
