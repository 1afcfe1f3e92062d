{# Post-hook of every model: drops the temporary view `<model>__dbt_tmp` that dbt-spark's
   incremental materialization leaves behind. The Thrift server runs one shared session,
   where such views would pile up, and Spark re-analyses (uncaches) every temporary view
   each time a connection closes: with a view per model, every later model paid seconds.
   A no-op for models that made none. #}
{% macro drop_temporary_view() -%}
    drop view if exists {{ adapter.quote(this.identifier ~ '__dbt_tmp') }}
{%- endmacro %}
