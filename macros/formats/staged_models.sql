{# The staging models of every enabled format (macro enabled_cdc_formats): the tables macro
   staged_loads reads, for macro loaded_since_last_run to look up the loads they recorded.
   Called while dbt parses too, so the model depends on each of them. #}
{% macro staged_models() -%}
    {%- set models = [] -%}
    {%- for entry in enabled_cdc_formats() -%}
        {%- do models.append(ref(entry.model)) -%}
    {%- endfor -%}
    {{ return(models) }}
{%- endmacro %}
