{% macro ddl_text_summary(ddl_text) -%}
    {%- set name -%} ([`"\\[]?[\\w$#]+[`"\\]]?) {%- endset -%}
    {%- set type -%}
        ([a-z]\\w*(?:\\s+(?:varying|precision))?(?:\\s*\\([^)]*\\))?(?:\\s+(?:unsigned|zerofill|with(?:out)?\\s+(?:local\\s+)?time\\s+zone))*)
    {%- endset -%}
    {%- set not_a_column -%}
        (?!(?:constraint|index|key|primary|unique|foreign|fulltext|spatial|partition|check|column|if)\\b)
    {%- endset -%}
    {%- set gap = "\\\\s+" -%}
    {%- set statement_type -%}
        case
            when {{ ddl_text }} rlike '(?i)^\\s*create\\s+((global\\s+)?temporary\\s+)?table\\b'
                then 'create_table'
            when {{ ddl_text }} rlike '(?i)^\\s*drop\\s+table\\b' then 'drop_table'
            when {{ ddl_text }} rlike '(?i)^\\s*(alter\\s+table|(add|drop|modify)\\s+column)\\b'
                then 'alter_table'
        end
    {%- endset -%}
    {#- (text, pattern, action, groups of name, new name, data type); CHANGE renames or modifies -#}
    {%- set create_clauses = [(
        "substr(" ~ ddl_text ~ ", instr(" ~ ddl_text ~ ", '('))",
        "(?i)[(,]\\\\s*" ~ not_a_column ~ name ~ gap ~ type, 'add', 1, none, 2,
    )] -%}
    {%- set alter_clauses = [
        (ddl_text, "(?i)\\\\badd\\\\s+(column\\\\s+)?(if\\\\s+not\\\\s+exists\\\\s+)?" ~ not_a_column ~ name ~ gap ~ type, 'add', 3, none, 4),
        (ddl_text, "(?i)\\\\bdrop\\\\s+(column\\\\s+)?(if\\\\s+exists\\\\s+)?" ~ not_a_column ~ name, 'drop', 3, none, none),
        (ddl_text, "(?i)\\\\bmodify\\\\s+(column\\\\s+)?" ~ not_a_column ~ name ~ gap ~ type, 'modify', 2, none, 3),
        (ddl_text, "(?i)\\\\balter\\\\s+column\\\\s+" ~ name ~ "\\\\s+(set\\\\s+data\\\\s+type\\\\s+|type\\\\s+)?(?!(?:set|drop|add)\\\\b)" ~ type, 'modify', 1, none, 3),
        (ddl_text, "(?i)\\\\bchange\\\\s+(column\\\\s+)?" ~ not_a_column ~ name ~ gap ~ name ~ gap ~ type, 'change', 2, 3, 4),
        (ddl_text, "(?i)\\\\brename\\\\s+column\\\\s+" ~ name ~ "\\\\s+to\\\\s+" ~ name, 'rename', 1, 2, none),
    ] -%}
    {#- each clause kind: one transform over its matches; CHANGE renames or only retypes -#}
    {%- set unquoted = "regexp_replace(%s, '[`\"\\\\[\\\\]]', '')" -%}
    {%- set columns_of = {} -%}
    {%- set statements = [('create_table', create_clauses), ('alter_table', alter_clauses)] -%}
    {%- for statement, clauses in statements -%}
        {%- set transforms = [] -%}
        {%- for text, pattern, action, name_group, new_name_group, type_group in clauses -%}
            {%- set matched = "regexp_extract_all(" ~ text ~ ", '" ~ pattern ~ "', " -%}
            {%- set old_name = unquoted | format("matched_name") -%}
            {%- set new_name = unquoted | format(
                "try_element_at(" ~ matched ~ (new_name_group or 1) ~ "), match_index + 1)"
            ) if new_name_group else "cast(null as string)" -%}
            {%- if action == 'change' -%}
                {%- set action_sql = "case when lower(" ~ old_name ~ ") = lower(" ~ new_name
                    ~ ") then 'modify' else 'rename' end" -%}
                {%- set new_name = "case when lower(" ~ old_name ~ ") != lower(" ~ new_name
                    ~ ") then " ~ new_name ~ " end" -%}
            {%- else -%}
                {%- set action_sql = "'" ~ action ~ "'" -%}
            {%- endif -%}
            {%- set data_type = (
                "try_element_at(" ~ matched ~ type_group ~ "), match_index + 1)"
            ) if type_group else "cast(null as string)" -%}
            {%- do transforms.append(
                "transform(" ~ matched ~ name_group ~ "), (matched_name, match_index) -> "
                ~ "named_struct('action', " ~ action_sql ~ ", 'name', " ~ old_name
                ~ ", 'new_name', " ~ new_name ~ ", 'data_type', " ~ data_type ~ "))"
            ) -%}
        {%- endfor -%}
        {%- do columns_of.update({statement: "concat(" ~ transforms | join(", ") ~ ")"}) -%}
    {%- endfor -%}
    named_struct(
        'statement_type', {{ statement_type }},
        'columns', case
            when {{ statement_type }} = 'create_table' then {{ columns_of['create_table'] }}
            when {{ statement_type }} = 'alter_table' then {{ columns_of['alter_table'] }}
            else cast(array() as array<struct<action: string, name: string, new_name: string, data_type: string>>)  -- noqa: LT01
        end
    )
{%- endmacro %}
