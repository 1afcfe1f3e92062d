{% macro version_kind_counts(relation) -%}
    (select count(*) from {{ relation }} where op = 'truncate'),
    (select count(*) from {{ relation }} where is_partial)
{%- endmacro %}
