{% macro canal_source_ts(message) -%}
    {{ epoch_ms_to_timestamp(canal_es_ms(message)) }}
{%- endmacro %}
