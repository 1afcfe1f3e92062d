{# The load times of the rows of every enabled format's staging table (macro
   enabled_cdc_formats) where `condition` holds: a subquery for macro loaded_since_last_run to
   probe, so a load is new to a model only when it brings rows the model keeps. Called while
   dbt parses too, so the model depends on each staging table it reads (see _macros.yml). #}
{% macro staged_loads(condition='true') -%}
    {%- set selects = [] -%}
    {%- for entry in enabled_cdc_formats() -%}
        {%- do selects.append(
            'select loaded_at from ' ~ ref(entry.model) ~ ' where ' ~ condition
        ) -%}
    {%- endfor -%}
    ({{ selects | join(' union all ') }}) as staged_loads
{%- endmacro %}
