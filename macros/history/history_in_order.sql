{# Whether every version the history delta reads this run (`new_versions`, macro
   new_history_versions) is newer than every version the history holds: its lowest
   `ordering_key` above the highest one the base recorded for `base_generation` (post-hook
   record_history_base_size) and the one the delta recorded since (`since_base`, macro
   versions_since_base). Then no touched key has a late change, and the delta leaves the
   late-key look-up out of its plan. No statement. False where a record is missing, where
   any version since the base is a truncate (`kinds`, macro history_delta_kinds: a truncate
   reaches keys it does not name), and while dbt parses. #}
{% macro history_in_order(base, base_generation, since_base, new_versions, kinds) -%}
    {%- if not execute or kinds.truncates or since_base is none -%}
        {{ return(false) }}
    {%- endif -%}
    {%- set recorded_for = table_property(base, 'cdc_lake.generation') -%}
    {%- set stored = [
        ordering_key_text(table_property(base, 'cdc_lake.newest_ordering_key')),
        since_base.held_newest,
    ] -%}
    {{ return(
        recorded_for is not none and (recorded_for | int) == base_generation
        and new_versions.first_ordering_key is not none
        and none not in stored
        and new_versions.first_ordering_key > stored | max
    ) }}
{%- endmacro %}
