{# Which kinds of row version the history delta's fold may meet, the parts of its plan it
   leaves out when none is there: `{'truncates': bool, 'partial_changes': bool}`, of every
   version, old ones too (a late change is folded with all of its key's versions). No
   statement where the base `base` recorded its kinds for `base_generation` (post-hook
   record_history_base_size) and `since_base` (macro versions_since_base) counts those
   loaded after it; else one of macro history_version_kinds, which reads the files of every
   version. True while dbt parses and in the SQL linter. See _macros.yml. #}
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
