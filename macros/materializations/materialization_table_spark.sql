{# Overrides dbt-spark's table materialization: see _materializations__macros.yml. #}
{% materialization table, adapter='spark' -%}
    {%- set existing = adapter.get_relation(
        database=database, schema=schema, identifier=model['alias']
    ) -%}
    {%- set target = api.Relation.create(
        database=database, schema=schema, identifier=model['alias'], type='table'
    ) -%}
    {%- set signed = modules.re.search('/[*] cdc_lake[.]built_from: (.+?) [*]/', sql) -%}
    {%- set signature = signed.group(1) if signed else none -%}
    {{ run_hooks(pre_hooks) }}
    {%- if signature is not none and existing is not none and existing.is_table
        and table_property(existing, 'cdc_lake.built_from') == signature
        and not should_full_refresh() -%}
        {%- call noop_statement('main', 'OK (unchanged)') -%}
            {{ sql }}
        {%- endcall -%}
    {%- else -%}
        {% do replace_table_as(existing, target, sql) %}
        {%- if signature is not none -%}
            {%- call statement('record_signature') -%}
                alter table {{ target }}
                set tblproperties ('cdc_lake.built_from' = '{{ signature }}')
            {%- endcall -%}
        {%- endif -%}
        {% do apply_grants(target, config.get('grants'), should_revoke(existing, true)) %}
        {% do persist_docs(target, model) %}
        {% do persist_constraints(target, model) %}
    {%- endif -%}
    {{ run_hooks(post_hooks) }}
    {{ return({'relations': [target]}) }}
{%- endmaterialization %}
