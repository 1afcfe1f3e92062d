{% macro next_generation(held_generations) -%}
    {%- if execute -%}
        {%- set started = (run_started_at.timestamp() * 1000000) | int -%}
        {%- set after_held = (held_generations | max) + 1 if held_generations else 0 -%}
        {{- [started, after_held] | max -}}
    {%- else -%}
        0
    {%- endif -%}
{%- endmacro %}
