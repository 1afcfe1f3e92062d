{# Post-hook: drops the `generation` partitions of `relation` that are superseded: those up
   to the newest generation of `covering_relation` when one is named (the delta partitions a
   compaction folded into the base), else all but the newest of `relation` itself (the base
   a compaction replaced). One statement; `select 1` when there is nothing to drop. #}
{% macro drop_generations_through(relation, covering_relation=none) -%}
    {%- set specs = [] -%}
    {%- if execute -%}
        {%- set own = partition_generations(relation) -%}
        {%- if covering_relation is not none -%}
            {%- set covering = partition_generations(covering_relation) -%}
            {%- set limit = covering | max if covering else none -%}
        {%- else -%}
            {%- set limit = (own | max) - 1 if own else none -%}
        {%- endif -%}
        {%- for generation in own if limit is not none and generation <= limit -%}
            {%- do specs.append('partition (generation = ' ~ generation ~ ')') -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if specs -%}
        alter table {{ relation }} drop if exists {{ specs | join(', ') }}
    {%- else -%}
        select 1
    {%- endif -%}
{%- endmacro %}
