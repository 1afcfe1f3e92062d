{% macro configured_key_columns(var_name, table_key) -%}
    {%- set configured = var(var_name, {}) -%}
    {%- set whens = [] -%}
    {%- if configured is mapping -%}
        {%- for configured_table, key_columns in configured.items() -%}
            {%- set quoted_columns = [] -%}
            {%- for key_column in key_columns -%}
                {%- do quoted_columns.append("'" ~ (key_column | replace("'", "\\'")) ~ "'") -%}
            {%- endfor -%}
            {%- do whens.append(
                "when '" ~ (configured_table | lower | replace("'", "\\'")) ~ "' then array("
                ~ (quoted_columns | join(', ')) ~ ")"
            ) -%}
        {%- endfor -%}
    {%- endif -%}
    {%- if whens -%}
        case {{ table_key }} {{ whens | join(' ') }} end
    {%- else -%}
        cast(null as array<string>)
    {%- endif -%}
{%- endmacro %}
