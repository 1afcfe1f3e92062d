{% macro loads_read_marked(compiled_sql) -%}
    {%- set marked = modules.re.search(
        '/\\* cdc_lake\\.loads_read: ([0-9,]*) \\*/', compiled_sql or ''
    ) -%}
    {%- if marked is none -%}
        {{ return(none) }}
    {%- endif -%}
    {{ return(marked.group(1).split(',') | reject('equalto', '') | map('int') | list) }}
{%- endmacro %}
