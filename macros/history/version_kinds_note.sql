{# A comment for the head of the history base's query (the calling model): which kinds of
   row version it folds (`kinds`, macro history_version_kinds), for its post-hook
   record_history_base_size to store. Empty while dbt parses. #}
{% macro version_kinds_note(kinds) -%}
    {%- if execute -%}
        {{ '/* cdc_lake.version_kinds: truncates ' ~ (kinds.truncates | lower)
            ~ '; partial changes ' ~ (kinds.partial_changes | lower) ~ ' */' }}
    {%- endif -%}
{%- endmacro %}
