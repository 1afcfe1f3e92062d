{% macro drop_generations_through(relation, covering_relation=none) -%}
    {%- set specs = [] -%}
    {%- if execute and not is_writing_nothing(this) -%}
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
    {%- endif -%}
{%- endmacro %}
