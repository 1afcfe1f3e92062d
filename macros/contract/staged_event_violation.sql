{# SQL: why a staged row breaks a rule every format shares, else NULL: the project's limits
   (`cdc_lake_limits`: message text, database/schema/table names), which bound what a
   message may put into the tables after staging, a name that is a JSON array or object
   (Spark reads any JSON value into a string field as its text: `"table": []` would be a
   table named `[]`), a source name a message gave (part of every table_key; `cdc-lake load`
   checks the names of loads), and a heartbeat's time, which `int_cdc__heartbeats` needs.
   All are rules of the whole message (every row of a message has the same text, names,
   source and kind), so staging's projection keeps one rejected row per message
   (`row_index` 0). #}
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
