{% macro compact_appended_table(relation, appended, properties=none) -%}
    {%- set cached = table_properties_in(load_relation(relation).information or '') -%}
    {%- set held = cached.get('cdc_lake.appends_since_compaction') -%}
    {%- set appends = (held | int if held else 0) + (1 if appended else 0) -%}
    {%- set rows = cached.get('cdc_lake.rows_at_compaction') -%}
    {#- The record of the loads read, which a rewrite carries over to its new table. -#}
    {%- set carried = {} -%}
    {%- for name in cached -%}
        {%- do carried.update(
            {name: cached[name]} if name.startswith('cdc_lake.loads_read') else {}
        ) -%}
    {%- endfor -%}
    {%- if var('cdc_lake_compact') or appends >= appends_between_compactions(rows | int) -%}
        {#- The rows in the order they were loaded, each file a stretch of loads (and so of
            times), as the appended files were: parquet's statistics of a file still let the
            readers of new loads, and staging's look-up of the held rows of a stretch of
            time, skip the others. Every appended model of the project has `loaded_at`; one
            without it is rewritten in no order. The same options as the model's own table. -#}
        {%- set table = relation.incorporate(type='table') -%}
        {%- set rewritten = table.incorporate(
            path={'identifier': relation.identifier ~ '__compacting'}
        ) -%}
        {%- set columns = adapter.get_columns_in_relation(table) -%}
        {%- set order = ' order by loaded_at' if 'loaded_at' in (
            columns | map(attribute='name') | list
        ) else '' -%}
        {%- do adapter.drop_relation(rewritten) -%}
        {%- do run_query(create_table_as(False, rewritten, 'select * from ' ~ relation ~ order)) -%}
        {%- do adapter.drop_relation(table) -%}
        {%- do adapter.rename_relation(rewritten, table) -%}
        {#- Its rows (parquet's footers count them), for the next rewrite's threshold; the
            new table has no count. -#}
        {%- set rows = run_query('select count(*) from ' ~ table).columns[0].values()[0] -%}
        {%- set stored = {'cdc_lake.rows_at_compaction': rows} -%}
        {%- do stored.update(carried) -%}
    {%- elif appended or properties -%}
        {%- set stored = {'cdc_lake.appends_since_compaction': appends} if appended else {} -%}
    {%- endif -%}
    {%- if stored is defined -%}
        {%- do stored.update(properties or {}) -%}
        {%- do set_table_properties(relation, stored) -%}
    {%- endif -%}
{%- endmacro %}
