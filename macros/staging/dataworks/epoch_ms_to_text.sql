{% macro epoch_ms_to_text(epoch_ms) -%}
    date_format({{ epoch_ms_to_timestamp(epoch_ms) }}, 'yyyy-MM-dd HH:mm:ss.SSS')
{%- endmacro %}
