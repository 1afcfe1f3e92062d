{% macro load_times_condition(loads, column='loaded_at', max_loads=1000) -%}
    {%- if not loads -%}
        {{ return('false') }}
    {%- elif loads | length > max_loads -%}
        {{ return(column ~ ' >= timestamp_micros(' ~ loads[0] ~ ')') }}
    {%- endif -%}
    {%- set never_loaded = never_loaded_micros() -%}
    {%- set times = [] -%}
    {%- for micros in loads + range(never_loaded - 10, never_loaded + 1) | list -%}
        {%- do times.append('timestamp_micros(' ~ micros ~ ')') -%}
    {%- endfor -%}
    {{ return(column ~ ' in (' ~ times | join(', ') ~ ')') }}
{%- endmacro %}
