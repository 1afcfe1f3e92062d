{# The row versions loaded since the history base's generation `base_generation` once the
   run's `new_versions` (macro new_history_versions) are in, for the calling history delta:
   `{'versions': N, 'truncates': T, 'partial_changes': P}`, the counts the delta's table
   properties hold (macro versions_counted_since) plus the run's, a kind none where the
   properties keep no count of it; with `new_versions`, the run's count, and `recorded`,
   whether the properties held a count; `held_newest` and `newest`, the highest
   `ordering_key` of the versions since the base before and after the run's ('' for none,
   none where not known).
   After a compaction (the delta holds no generation past the base) the counts start from
   the run's. None when delta generations past the base hold versions nobody counted (a
   delta built before it kept the count), and while dbt parses. #}
{% macro versions_since_base(base_generation, own_generations, new_versions) -%}
    {%- if not execute -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set counted = (
        versions_counted_since(this, base_generation) if is_incremental() else none
    ) -%}
    {%- if counted is none and own_generations | select('gt', base_generation) | list -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set held = counted or {
        'versions': 0, 'truncates': 0, 'partial_changes': 0, 'newest': ''
    } -%}
    {%- set since = {
        'recorded': counted is not none,
        'new_versions': new_versions.count,
        'versions': held.versions + new_versions.count,
        'held_newest': held.newest,
        'newest': none if held.newest is none or (
            new_versions.count and new_versions.last_ordering_key is none
        ) else [held.newest, new_versions.last_ordering_key or ''] | max,
    } -%}
    {%- for kind in ['truncates', 'partial_changes'] -%}
        {%- set new = new_versions['new_' ~ kind] -%}
        {%- do since.update({kind: none if held[kind] is none else held[kind] + new}) -%}
    {%- endfor -%}
    {{ return(since) }}
{%- endmacro %}
