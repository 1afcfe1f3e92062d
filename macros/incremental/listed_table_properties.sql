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
