{# The last statement of a model that reads only its run's new loads: `select * from
   final`, or, when the run has none (`new_loads` is 'false'), macro writes_nothing, so no
   insert runs at all (see _macros.yml). #}
{% macro select_new_rows(new_loads) -%}
    {%- if new_loads == 'false' -%}
        {{ writes_nothing(this) }}
    {%- else -%}
        select * from final
    {%- endif -%}
{%- endmacro %}
