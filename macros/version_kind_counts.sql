{# Two columns of a `select`: whether `relation` (int_cdc__row_versions) holds a truncate, and
   whether it holds a partial change (1 or 0 each), a scalar subquery per kind, so that parquet
   answers each from its files' metadata where the kind is absent (`is_partial` from the
   statistics, `op` from the dictionaries, as 'truncate' lies between the other operations'
   names). Asked together in one `or`, neither could drop a file and the probe read every
   version. See _macros.yml. #}
{% macro version_kind_counts(relation) -%}
    (select count(*) from (select 1 from {{ relation }} where op = 'truncate' limit 1)),
    (select count(*) from (select 1 from {{ relation }} where is_partial limit 1))
{%- endmacro %}
