{# A comment for the head of the history delta's query (the calling model): how many row
   versions have been loaded since the base's generation `base_generation` once the run's
   `new_count` are in, for the delta's post-hook record_versions_since_base to store. The
   count its table properties hold (macro versions_counted_since) goes on, unless it was
   counted against an older base (a compaction since: the delta then holds no generation
   past the base, and the count starts again); with no count, and delta generations past
   the base that nobody counted, no comment (macro history_compaction_due then counts).
   Empty when the properties already say it (nothing new), and while dbt parses. #}
{% macro versions_since_base_note(new_count, base_generation, own_generations) -%}
    {%- if not execute -%}
        {{ return('') }}
    {%- endif -%}
    {%- set counted = (
        versions_counted_since(this, base_generation) if is_incremental() else none
    ) -%}
    {%- if counted is not none and new_count == 0 -%}
        {{ return('') }}
    {%- elif counted is none and own_generations | select('gt', base_generation) | list -%}
        {{ return('') }}
    {%- endif -%}
    {%- set total = new_count + (counted or 0) -%}
    {{ return('/* cdc_lake.versions_since_base: ' ~ total ~ ' since ' ~ base_generation ~ ' */') }}
{%- endmacro %}
