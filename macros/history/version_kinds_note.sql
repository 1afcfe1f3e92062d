{% macro version_kinds_note(kinds) -%}
    {%- if execute -%}
        {{ '/* cdc_lake.version_kinds: truncates ' ~ (kinds.truncates | lower)
            ~ '; partial changes ' ~ (kinds.partial_changes | lower) ~ ' */' }}
    {%- endif -%}
{%- endmacro %}
