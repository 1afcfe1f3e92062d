{# The SQL of a model that rewrites its whole table from small inputs (see _macros.yml):
   `query`, headed by a comment naming its build signature, or, on an incremental run whose
   signature is the one the table was last written with (table property
   `cdc_lake.built_from`, stored by the post-hook record_build_signature), macro
   writes_nothing. The signature is the newest value of each of `inputs`, (relation, column)
   pairs whose newest value moves with every write (a generation, a load time), and an md5
   of `query`, so that a changed model or var rewrites the table too: one query and a
   metastore call. `query` as it is while dbt parses and in the SQL linter. #}
{% macro rewrite_when_inputs_change(query, inputs) -%}
    {%- if not execute -%}
        {{ return(query) }}
    {%- endif -%}
    {%- set newest = [] -%}
    {%- for relation, column in inputs -%}
        {%- do newest.append(
            "coalesce((select cast(max(" ~ column ~ ") as string) from " ~ relation ~ "), '')"
        ) -%}
    {%- endfor -%}
    {%- set values = run_query('select ' ~ newest | join(', ')).rows[0] | list -%}
    {%- set signature = (values + [local_md5(query | trim)]) | join('/') -%}
    {%- if is_incremental() -%}
        {%- set properties = run_query('show tblproperties ' ~ this).rows -%}
        {%- for name, value in properties if name == 'cdc_lake.built_from' -%}
            {%- if value == signature -%}
                {{ return(writes_nothing(this)) }}
            {%- endif -%}
        {%- endfor -%}
    {%- endif -%}
    {{ return('/* cdc_lake.built_from: ' ~ signature ~ ' */\n' ~ query) }}
{%- endmacro %}
