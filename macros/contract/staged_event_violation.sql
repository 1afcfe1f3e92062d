{% macro staged_event_violation(absent=[]) -%}
    {%- set limits = cdc_lake_limits() -%}
    {%- set names = ['database_name', 'schema_name', 'table_name'] | reject('in', absent) | list -%}
    case
        {# Bytes first: octet_length is read from the string's header, length counts the
           characters of every message (an eighth of staging's time), and a text is never
           more characters than bytes. #}
        when octet_length(raw_value_text) > {{ limits.message_characters }}
            and length(raw_value_text) > {{ limits.message_characters }}
            then concat(
                'message of ', cast(length(raw_value_text) as string),
                ' characters is over the limit of {{ limits.message_characters }}'
            )
        when greatest(
    {%- for name in names %}
            coalesce(length({{ name }}), 0){{ ',' if not loop.last }}
    {%- endfor %}
        ) > {{ limits.name_characters }}
            then 'a database, schema or table name is over the limit of '
            || '{{ limits.name_characters }} characters'
    {%- for name in names %}
        when left({{ name }}, 1) || right({{ name }}, 1) in ('[]', '{}')
            then '{{ name | replace('_', ' ') }} is a JSON array or object, not text'
    {%- endfor %}
        when not regexp(
            coalesce(source_name, 'unnamed'),
            '^[A-Za-z0-9._-]{1,{{ limits.source_name_characters }}}$'
        )
            then 'source name is not 1 to {{ limits.source_name_characters }} letters, digits, '
            || '".", "_" or "-"'
        when message_event_kind = 'heartbeat' and source_ts is null
            then 'a heartbeat without its time'
    end
{%- endmacro %}
