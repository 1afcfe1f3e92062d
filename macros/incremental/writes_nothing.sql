{% macro writes_nothing(relation) -%}
    select * from {{ relation }} where false
{%- endmacro %}
