{# Post-hook: stores the row count of `relation` as its table property `cdc_lake.row_count`
   after a run that wrote it (one count, from parquet footers), so that a later run reads it
   from the metastore rather than counting the table (macro history_compaction_due). Nothing
   after a run that wrote nothing. #}
{% macro record_row_count(relation) -%}
    {%- if execute and not is_writing_nothing(relation) -%}
        {%- set row_count = run_query('select count(*) from ' ~ relation).rows[0][0] -%}
        alter table {{ relation }} set tblproperties ('cdc_lake.row_count' = '{{ row_count }}')
    {%- endif -%}
{%- endmacro %}
