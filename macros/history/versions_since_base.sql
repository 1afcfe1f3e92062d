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
