{% macro probe_canal_messages(relation, condition, source_format, numbers_as_sent=false) -%}
    {{ return(probe_new_messages(
        relation,
        condition,
        source_ts=epoch_ms_to_timestamp(canal_es_ms('parsed')),
        parsed="from_json(" ~ (json_numbers_as_sent('value') if numbers_as_sent else 'value')
            ~ ", 'es string')",
        first_event_id=canal_event_id(source_format, 'sha2(value, 256)', '0'),
    )) }}
{%- endmacro %}
