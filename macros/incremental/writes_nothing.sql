{# The query of a model's run that has no rows to write: the table's own columns, no row
   (see _macros.yml). #}
{% macro writes_nothing(relation) -%}
    select * from {{ relation }} where false
{%- endmacro %}
