{# Post-hook of `int_cdc__row_history_base`: after a run that rebuilt it, stores its row count
   and its generation as its table properties `cdc_lake.row_count` and `cdc_lake.generation`
   (one query, answered from parquet footers and partition values), which macro
   history_compaction_due reads from the metastore rather than counting the table. Nothing
   after a run that wrote nothing. #}
{% macro record_history_base_size(relation) -%}
    {%- if execute and not is_writing_nothing(relation) -%}
        {%- set size = run_query(
            'select count(*), max(generation) from ' ~ relation
        ).rows[0] -%}
        alter table {{ relation }} set tblproperties (
            'cdc_lake.row_count' = '{{ size[0] }}',
            'cdc_lake.generation' = '{{ size[1] or 0 }}'
        )
    {%- endif -%}
{%- endmacro %}
