{# Overrides dbt-spark's view materialization: see _materializations__macros.yml. #}
{% materialization view, adapter='spark' -%}
    {%- set existing = adapter.get_relation(
        database=database, schema=schema, identifier=model['alias']
    ) -%}
    {%- set query = sql | trim -%}
    {#- The relation cache's description of a view (Spark's `show table extended`) holds its
        query twice, as analysed and as written, each a line-bounded field. -#}
    {%- set stored_as_is = '\nView Text: ' ~ query ~ '\nView Original Text: ' ~ query ~ '\n' -%}
    {%- if existing is not none and existing.is_view
        and stored_as_is in (existing.information or '')
        and not should_full_refresh()
        and not config.persist_relation_docs()
        and not config.persist_column_docs()
        and not config.get('contract').enforced -%}
        {{ run_hooks(pre_hooks) }}
        {%- call noop_statement('main', 'OK (unchanged)') -%}
            {{ sql }}
        {%- endcall -%}
        {{ run_hooks(post_hooks) }}
        {{ return({'relations': [existing]}) }}
    {%- endif -%}
    {{ return(create_or_replace_view()) }}
{%- endmaterialization %}
