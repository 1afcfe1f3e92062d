{# Overrides dbt-spark's incremental materialization: see _materializations__macros.yml. #}
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
    {%- set recorded = recorded_loads(
        table_properties_in(existing.information or '') if existing is not none else {}
    ) -%}
    {%- set loads_record = {} -%}
    {{ run_hooks(pre_hooks) }}
    {%- if creating -%}
        {% do replace_table_as(existing, this, sql) %}
        {% do persist_constraints(this, model) %}
    {%- elif writing_nothing -%}
        {%- call noop_statement('main', 'OK (nothing new)') -%}
            {{ sql }}
        {%- endcall -%}
        {#- Without a record, its readers would probe it every run: it records what it holds. -#}
        {%- if strategy == 'append' and recorded.through is none -%}
            {%- set loads_record = held_loads_properties(this) -%}
        {%- endif -%}
    {%- else -%}
        {#- An overwrite replaces only the partitions it writes (dynamic mode), whatever the
            server's default: in static mode it would first empty every partition. -#}
        {%- if strategy == 'insert_overwrite' and config.get('partition_by') -%}
            {%- call statement() -%}
                set spark.sql.sources.partitionOverwriteMode = DYNAMIC
            {%- endcall -%}
        {%- endif -%}
        {#- A run that stops between its insert and its record must not leave the record of
            the loads before it: the next run would read this run's loads again. -#}
        {%- if recorded.through is not none -%}
            {% do set_table_properties(this, {'cdc_lake.loads_read_through': ''}) %}
        {%- endif -%}
        {%- call statement('main') -%}
            {{ incremental_insert_sql(this, overwrite=strategy == 'insert_overwrite') }}
        {%- endcall -%}
        {%- set named = loads_read_marked(model.compiled_code) -%}
        {%- if named is not none or recorded.through is not none -%}
            {%- set loads_record = loads_read_properties(named, recorded) -%}
        {%- endif -%}
    {%- endif -%}
    {#- A new table is a few files; each append adds some for good (and every read opens
        them all), so an appended table is rewritten every so many appending runs, and
        stores its record with its count. -#}
    {%- if strategy == 'append' and not creating -%}
        {% do compact_appended_table(this, not writing_nothing, loads_record) %}
    {%- elif loads_record -%}
        {% do set_table_properties(this, loads_record) %}
    {%- endif -%}
    {%- set revoke = should_revoke(existing, should_full_refresh()) -%}
    {% do apply_grants(this, config.get('grants'), revoke) %}
    {% do persist_docs(this, model) %}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [this]}) }}
{%- endmaterialization %}
