{# The load times of the rows of every enabled format's staging table (macro staged_models)
   where `condition` holds: a subquery for macro loaded_since_last_run to probe, so a load is
   new to a model only when it brings rows the model keeps. Called while dbt parses too, so
   the model depends on each staging table it reads (see _macros.yml). #}
{% macro staged_loads(condition='true') -%}
    {%- set selects = [] -%}
    {%- for model in staged_models() -%}
        {%- do selects.append('select loaded_at from ' ~ model ~ ' where ' ~ condition) -%}
    {%- endfor -%}
    ({{ selects | join(' union all ') }}) as staged_loads
{%- endmacro %}
