{# Post-hook of the appended models (staging, the row versions, the message accounting, the
   schema changes): counts the runs that appended to `relation` since it was last rewritten
   (table property `cdc_lake.appends_since_compaction`, read from dbt's relation cache), and
   when they reach var `cdc_lake_compaction_appends`, or var `cdc_lake_compact` is true,
   rewrites the table as a few files instead (see _macros.yml). The statement it returns
   stores the count; none on a full build, which writes a new table. #}
{% macro compact_appended_table(relation) -%}
    {%- if not execute or should_full_refresh() -%}
        {{ return('') }}
    {%- endif -%}
    {%- set writing = not is_writing_nothing(this) -%}
    {%- set held = table_property(relation, 'cdc_lake.appends_since_compaction') -%}
    {%- set appends = (held | int if held else 0) + (1 if writing else 0) -%}
    {%- if var('cdc_lake_compact') or appends >= var('cdc_lake_compaction_appends') -%}
        {#- The rows in the order they were loaded, each file a stretch of loads (and so of
            times), as the appended files were: parquet's statistics of a file still let the
            readers of new loads, and staging's look-up of the held rows of a stretch of
            time, skip the others. The same options as the model's own table. -#}
        {%- set table = relation.incorporate(type='table') -%}
        {%- set rewritten = table.incorporate(
            path={'identifier': relation.identifier ~ '__compacting'}
        ) -%}
        {%- do run_query('drop table if exists ' ~ rewritten) -%}
        {%- do run_query(create_table_as(
            False, rewritten, 'select * from ' ~ relation ~ ' order by loaded_at'
        )) -%}
        {%- do adapter.drop_relation(table) -%}
        {%- do adapter.rename_relation(rewritten, table) -%}
        {#- What the materialization applied to the table it wrote, applied to this one. -#}
        {%- do apply_grants(table, config.get('grants'), should_revoke=False) -%}
        {%- do persist_docs(table, model) -%}
        {{ return('') }}
    {%- elif writing -%}
        alter table {{ relation }} set tblproperties (
            'cdc_lake.appends_since_compaction' = '{{ appends }}'
        )
    {%- endif -%}
{%- endmacro %}
