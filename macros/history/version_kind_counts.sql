{# Two columns of a `select`: how many versions of `relation` (int_cdc__row_versions) are
   truncates, and how many are partial changes, a scalar subquery per kind, so that parquet
   answers each from its files' metadata where the kind is absent (`is_partial` from the
   statistics, `op` from the dictionaries, as 'truncate' lies between the other operations'
   names). Asked together in one `or`, neither could drop a file and the probe read every
   version. Counted, not limited to the first: Spark names the counter of a `limit` in a
   subquery anew for every plan, so each run compiled the probe's eight classes again. See
   _macros.yml. #}
{% macro version_kind_counts(relation) -%}
    (select count(*) from {{ relation }} where op = 'truncate'),
    (select count(*) from {{ relation }} where is_partial)
{%- endmacro %}
