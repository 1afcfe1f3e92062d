{# A comment for the head of the history delta's query (the calling model): the row versions
   loaded since the base's generation `base_generation` once the run's are in, and of them
   the truncates and the partial changes, and their highest `ordering_key` (`since_base`,
   macro versions_since_base; `unknown` where it is not known), for the delta's post-hook
   record_versions_since_base to store. A kind the delta kept no count of
   (a delta built before it did) is written as 1 or 0, whether any version at all is of
   that kind (`kinds`, macro history_delta_kinds, which then asked every version): never
   fewer than there are, so that a later run does not leave a part out of its fold that it
   needs. Empty when the properties already say it (they held a count and nothing is new),
   when nobody counted the delta generations past the base (`since_base` none: macro
   history_compaction_due then counts them), and while dbt parses. #}
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
