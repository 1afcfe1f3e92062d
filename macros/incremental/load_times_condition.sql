{# The condition keeping the rows of `column` loaded at one of `loads` (microseconds since
   1970, in ascending order, as a probe found them): `false` for none, else the loads by name,
   padded past 10 with load times no load has, or `column >=` the first of them over
   `max_loads` (see macro loaded_after for why they are named). #}
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
