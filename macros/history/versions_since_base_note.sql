{% macro versions_since_base_note(since_base, base_generation, kinds) -%}
    {%- if since_base is none or since_base.recorded and since_base.new_versions == 0 -%}
        {{ return('') }}
    {%- endif -%}
    {%- set counts = [] -%}
    {%- for kind in ['truncates', 'partial_changes'] -%}
        {%- do counts.append(
            since_base[kind] if since_base[kind] is not none else (1 if kinds[kind] else 0)
        ) -%}
    {%- endfor -%}
    {{ return(
        '/* cdc_lake.versions_since_base: ' ~ since_base.versions ~ ' since ' ~ base_generation
        ~ '; truncates ' ~ counts[0] ~ '; partial changes ' ~ counts[1]
        ~ '; newest ordering key ' ~ (
            since_base.newest if since_base.newest is not none else 'unknown'
        ) ~ ' */'
    ) }}
{%- endmacro %}
