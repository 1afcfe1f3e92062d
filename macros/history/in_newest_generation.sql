{# A condition keeping the rows of `relation`'s newest `generation` (the column `column`):
   the tables rewritten whole as a new generation per run (the table sightings) hold one,
   unless a run stopped before its post-hook dropped the older one. #}
{% macro in_newest_generation(relation, column='generation') -%}
    {{ column }} = (select max(newest.generation) from {{ relation }} as newest)
{%- endmacro %}
