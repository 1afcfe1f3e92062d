{# The table properties of `relations` as Spark lists them now, by table name: one `show
   table extended ... like` per schema. For tables another model of the same run may have
   altered since it began, which dbt's relation cache (macro table_property) describes as
   they were then. An absent table has no entry. #}
{% macro listed_table_properties(relations) -%}
    {%- set by_schema = {} -%}
    {%- for relation in relations -%}
        {%- do by_schema.setdefault(relation.schema, []).append(relation.identifier) -%}
    {%- endfor -%}
    {%- set listed = {} -%}
    {%- for schema, names in by_schema.items() -%}
        {%- set tables = run_query(
            'show table extended in ' ~ schema ~ " like '" ~ names | join('|') ~ "'"
        ) -%}
        {%- for table in tables.rows -%}
            {%- do listed.update({table[1]: table_properties_in(table[3])}) -%}
        {%- endfor -%}
    {%- endfor -%}
    {{ return(listed) }}
{%- endmacro %}
