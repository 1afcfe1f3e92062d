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
