{# Overrides dbt-spark's incremental materialization (see _macros.yml): a first or
   --full-refresh run creates the table as dbt-spark does; an incremental run issues its
   insert (macro incremental_insert_sql) and no temporary view of the model's query, and a
   run whose model writes nothing (macro writes_nothing) issues no statement at all. An
   appended table counts the runs that appended to it and is rewritten as a few files every
   so many (macro compact_appended_table). #}
{% materialization incremental, adapter='spark' -%}
    {%- set strategy = config.get('incremental_strategy') or 'append' -%}
    {%- set on_schema_change = config.get('on_schema_change') or 'ignore' -%}
    {%- if strategy not in ['append', 'insert_overwrite']
        or on_schema_change not in ['ignore', 'fail'] -%}
        {{ exceptions.raise_compiler_error(
            "Model '" ~ model.unique_id ~ "': cdc-lake's incremental materialization takes"
            ~ " incremental_strategy append or insert_overwrite (parquet has no merge) and"
            ~ " on_schema_change ignore or fail (its insert by name fails on a changed column"
            ~ " list), not '" ~ strategy ~ "' and '" ~ on_schema_change ~ "'"
        ) }}
    {%- endif -%}
    {%- set existing = load_relation(this) -%}
    {%- set creating = existing is none or existing.is_view or should_full_refresh() -%}
    {%- set writing_nothing = is_writing_nothing(this) -%}
    {{ run_hooks(pre_hooks) }}
    {%- if creating -%}
        {% do replace_table_as(existing, this, sql) %}
        {% do persist_constraints(this, model) %}
    {%- elif writing_nothing -%}
        {%- call noop_statement('main', 'OK (nothing new)') -%}
            {{ sql }}
        {%- endcall -%}
    {%- else -%}
        {#- An overwrite replaces only the partitions it writes (dynamic mode), whatever the
            server's default: in static mode it would first empty every partition. -#}
        {%- if strategy == 'insert_overwrite' and config.get('partition_by') -%}
            {%- call statement() -%}
                set spark.sql.sources.partitionOverwriteMode = DYNAMIC
            {%- endcall -%}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ incremental_insert_sql(this, overwrite=strategy == 'insert_overwrite') }}
        {%- endcall -%}
    {%- endif -%}
    {#- A new table is a few files; each append adds some for good (and every read opens
        them all), so an appended table is rewritten every so many appending runs. -#}
    {%- if strategy == 'append' and not creating -%}
        {% do compact_appended_table(this, appended=not writing_nothing) %}
    {%- endif -%}
    {%- set revoke = should_revoke(existing, should_full_refresh()) -%}
    {% do apply_grants(this, config.get('grants'), revoke) %}
    {% do persist_docs(this, model) %}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [this]}) }}
{%- endmaterialization %}
