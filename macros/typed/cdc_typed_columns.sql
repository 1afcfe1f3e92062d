{% macro cdc_typed_columns(table_key, column_types=none) -%}
    {%- set overrides = column_types or {} -%}
    {%- set schema_rows = [] -%}
    {#- outside `if execute`, so that dbt sees the dependency while it parses -#}
    {%- set schemas = ref('int_cdc__table_columns') -%}
    {%- if execute -%}
        {%- if adapter.get_relation(schemas.database, schemas.schema, schemas.identifier) -%}
            {%- set schema_query = (
                "select column_name, spark_type, source_type from " ~ schemas
                ~ " where table_key = '"
                ~ (table_key | lower | replace("\\", "\\\\") | replace("'", "\\'"))
                ~ "' order by column_position"
            ) -%}
            {%- for row in run_query(schema_query).rows -%}
                {%- do schema_rows.append([row[0], row[1], row[2]]) -%}
            {%- endfor -%}
        {%- endif -%}
    {%- endif -%}
    {%- set typed_columns = [] -%}
    {%- set taken_names = [] -%}
    {%- set longest = cdc_lake_limits().name_characters -%}
    {%- set most = cdc_lake_limits().row_columns -%}
    {%- for column_name, spark_type, source_type in schema_rows -%}
        {%- if column_name | length > longest or column_name | lower in taken_names
            or typed_columns | length >= most -%}
            {%- do log(
                'cdc_typed_columns(' ~ table_key ~ '): column ' ~ column_name[:80]
                ~ ' left out (a case twin of an earlier column, a name over '
                ~ longest ~ ' characters, or past ' ~ most ~ ' columns)',
                info=true
            ) -%}
        {%- else -%}
            {%- do taken_names.append(column_name | lower) -%}
            {%- do typed_columns.append(
                [column_name, overrides.get(column_name, spark_type), source_type]
            ) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- for column_name, spark_type in overrides.items() -%}
        {%- if column_name | lower not in taken_names -%}
            {%- do taken_names.append(column_name | lower) -%}
            {%- do typed_columns.append([column_name, spark_type, none]) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(typed_columns) }}
{%- endmacro %}
