{# The `generation` a run writes into a table partitioned by it: the time the dbt run started
   (microseconds since 1970), or one past the newest generation held should the clock say
   otherwise. Known before the query runs, so the query computes no partition value (a
   scan and a job less); `held_generations` as from macro partition_generations. 0 while dbt
   parses and in the SQL linter, where nothing runs. #}
{% macro next_generation(held_generations) -%}
    {%- if execute -%}
        {%- set started = (run_started_at.timestamp() * 1000000) | int -%}
        {%- set after_held = (held_generations | max) + 1 if held_generations else 0 -%}
        {{- [started, after_held] | max -}}
    {%- else -%}
        0
    {%- endif -%}
{%- endmacro %}
