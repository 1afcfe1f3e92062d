{# The location of a table (its directory URI) as dbt's relation cache describes it (the
   `Location` line of Spark's `show table extended`, as macro table_property reads the
   properties), else from `describe table extended`. #}
{% macro relation_location(relation) -%}
    {%- set cached = load_relation(relation) -%}
    {%- set listed = modules.re.search(
        '\nLocation: (.*)\n', (cached.information or '') if cached else ''
    ) -%}
    {%- if listed -%}
        {{ return(listed.group(1)) }}
    {%- endif -%}
    {%- for row in run_query('describe table extended ' ~ relation).rows -%}
        {%- if row[0] == 'Location' -%}
            {{ return(row[1]) }}
        {%- endif -%}
    {%- endfor -%}
    {{ exceptions.raise_compiler_error('No location for ' ~ relation) }}
{%- endmacro %}
