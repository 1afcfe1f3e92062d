{# Empties the temporary view `<model>__dbt_tmp` that dbt-spark's incremental
   materialization makes (see _macros.yml for why it is replaced by a one-row view, not
   dropped). Renders nothing for other materializations. #}
{% macro empty_temporary_view() -%}
    {%- if config.get('materialized') == 'incremental' -%}
        create or replace temporary view {{ adapter.quote(this.identifier ~ '__dbt_tmp') }} as
        select 1 as emptied
    {%- endif -%}
{%- endmacro %}
