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
