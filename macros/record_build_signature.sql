{# Post-hook: stores the build signature named at the head of the model's SQL (macro
   rewrite_when_inputs_change) as the table property `cdc_lake.built_from` of `relation`,
   after a run that wrote it. Nothing after a run that wrote nothing. #}
{% macro record_build_signature(relation) -%}
    {%- if execute and not is_writing_nothing(relation) -%}
        {%- set named = modules.re.search(
            'cdc_lake[.]built_from: (.+?) [*]/', model.compiled_code or ''
        ) -%}
        {%- if named -%}
            alter table {{ relation }}
            set tblproperties ('cdc_lake.built_from' = '{{ named.group(1) }}')
        {%- endif -%}
    {%- endif -%}
{%- endmacro %}
