{% macro probe_canal_messages(relation, condition, source_format, numbers_as_sent=false) -%}
    {{ return(probe_new_messages(
        relation,
        condition,
        source_ts=canal_source_ts('parsed'),
        parsed=canal_es_only('value', numbers_as_sent),
        first_event_id=canal_event_id(source_format, 'sha2(value, 256)', '0'),
    )) }}
{%- endmacro %}
