{# The loads a condition of macro load_times_condition names, in its order (microseconds
   since 1970): none for `false`, and none at all (not a list) for a condition that does not
   name them (`true`, or past `max_loads` a comparison). #}
{% macro named_loads(condition) -%}
    {%- if condition == 'false' -%}
        {{ return([]) }}
    {%- elif ' in (' not in condition -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set loads = [] -%}
    {%- for micros in modules.re.findall('timestamp_micros\\((\\d+)\\)', condition) -%}
        {%- if micros | int < never_loaded_micros() - 10 -%}
            {%- do loads.append(micros | int) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(loads) }}
{%- endmacro %}
