{# The last statement of a model that reads only its run's new loads: `select * from
   final`, or, when the run has none (`new_loads` is 'false'), macro writes_nothing, so no
   insert runs at all (see _macros.yml). An appended table's rows go to its open
   `load_segment` (macro load_segment_state; 0, closed after the run, on a first or
   full-refresh run). #}
{% macro select_new_rows(new_loads) -%}
    {%- if new_loads == 'false' -%}
        {{ writes_nothing(this) }}
    {%- elif is_load_segmented() -%}
        {%- set segment = load_segment_state(this).open if is_incremental() else 0 -%}
        select
            *,
            {{ segment }} as load_segment
        from final
    {%- else -%}
        select * from final
    {%- endif -%}
{%- endmacro %}
