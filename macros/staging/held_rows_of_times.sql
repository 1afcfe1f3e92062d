{# A condition on `column` (a held row's `source_ts`) keeping the held rows that can be an
   earlier delivery of a run's events, given the run's range of `source_ts`
   (`source_ts_range`, microseconds: macro probe_new_messages): those of that range, or with
   none (both bounds none: only those with none). One definition for the probe of held first
   rows and staging's look-up of held deliveries, which must read the same rows. #}
{% macro held_rows_of_times(column, source_ts_range) -%}
    {%- if source_ts_range[0] is not none -%}
        {{ column }} between timestamp_micros({{ source_ts_range[0] }})
        and timestamp_micros({{ source_ts_range[1] }})
        or {{ column }} is null
    {%- else -%}
        {{ column }} is null
    {%- endif -%}
{%- endmacro %}
