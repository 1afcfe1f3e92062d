{# A comment for the head of the history delta's query (the calling model): how many row
   versions have been loaded since the base's generation `base_generation` once the run's
   `new_count` are in, for the delta's post-hook record_versions_since_base to store. The
   count its table properties hold goes on, unless it was counted against an older base (a
   compaction since: the delta then holds no generation past the base, and the count starts
   again); with no count, and delta generations past the base that nobody counted, no
   comment (macro history_compaction_due then counts). Empty when the properties already
   say it (nothing new), and while dbt parses. #}
{% macro versions_since_base_note(new_count, base_generation, own_generations) -%}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set counted_since = table_property(this, 'cdc_lake.base_generation') -%}
    {%- set counted = table_property(this, 'cdc_lake.versions_since_base') -%}
    {%- set same_base = is_incremental() and none not in [counted_since, counted]
        and (counted_since | int) == base_generation -%}
    {%- if same_base and new_count == 0 -%}
        {{ return('') }}
    {%- elif not same_base and own_generations | select('gt', base_generation) | list -%}
        {{ return('') }}
    {%- endif -%}
    {%- set total = new_count + ((counted | int) if same_base else 0) -%}
    {{ return('/* cdc_lake.versions_since_base: ' ~ total ~ ' since ' ~ base_generation ~ ' */') }}
{%- endmacro %}
