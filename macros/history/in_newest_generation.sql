{% macro in_newest_generation(relation, column='generation') -%}
    {{ column }} = (select max(newest.generation) from {{ relation }} as newest)
{%- endmacro %}
