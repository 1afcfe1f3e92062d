{% macro history_delta_kinds(row_versions, base, base_generation, since_base) -%}
    {%- if not execute -%}
        {{ return({'truncates': true, 'partial_changes': true}) }}
    {%- endif -%}
    {%- set recorded_for = table_property(base, 'cdc_lake.generation') -%}
    {%- set kinds = {} -%}
    {%- if since_base is not none and recorded_for is not none
        and (recorded_for | int) == base_generation -%}
        {%- for kind in ['truncates', 'partial_changes'] -%}
            {%- set held = table_property(base, 'cdc_lake.' ~ kind) -%}
            {%- if held is not none and since_base[kind] is not none -%}
                {%- do kinds.update({kind: held == 'true' or since_base[kind] > 0}) -%}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return(kinds if kinds | length == 2 else history_version_kinds(row_versions)) }}
{%- endmacro %}
