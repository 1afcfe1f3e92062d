{# A Canal message's `es` (the binlog event time, epoch milliseconds) when it is a
   non-negative integer, else NULL: the time its rows' `source_ts` is, and the first of their
   ordering fields (sortable_number needs digits). `message` is a parsed message: the whole
   one in canal_staged_events, its `es` alone for the probe (canal_es_only, canal_source_ts). #}
{% macro canal_es_ms(message) -%}
    case
        when try_cast({{ message }}.es as bigint) >= 0
            then try_cast({{ message }}.es as bigint)
    end
{%- endmacro %}
