{% macro versions_counted_since(relation, base_generation) -%}
    {%- set counted_since = table_property(relation, 'cdc_lake.base_generation') -%}
    {%- set counted = table_property(relation, 'cdc_lake.versions_since_base') -%}
    {%- if none in [base_generation, counted_since, counted]
        or (counted_since | int) != (base_generation | int) -%}
        {{ return(none) }}
    {%- endif -%}
    {%- set counts = {'versions': counted | int} -%}
    {%- for kind in ['truncates', 'partial_changes'] -%}
        {%- set value = table_property(relation, 'cdc_lake.' ~ kind ~ '_since_base') -%}
        {%- do counts.update({kind: value | int if value is not none else none}) -%}
    {%- endfor -%}
    {#- Stored with the count it was stored with: a run that kept the count and not it (a
        project from before it) leaves it stale, and a mismatch tells. -#}
    {%- set newest = (
        table_property(relation, 'cdc_lake.newest_ordering_key_since_base') or ''
    ).partition(':') -%}
    {%- do counts.update({
        'newest': ordering_key_text(newest[2]) if newest[1] and newest[0] == counted else none
    }) -%}
    {{ return(counts) }}
{%- endmacro %}
