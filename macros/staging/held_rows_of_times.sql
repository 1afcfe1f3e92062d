{% macro held_rows_of_times(column, source_ts_range) -%}
    {%- if source_ts_range[0] is not none -%}
        {{ column }} between timestamp_micros({{ source_ts_range[0] }})
        and timestamp_micros({{ source_ts_range[1] }})
        or {{ column }} is null
    {%- else -%}
        {{ column }} is null
    {%- endif -%}
{%- endmacro %}
