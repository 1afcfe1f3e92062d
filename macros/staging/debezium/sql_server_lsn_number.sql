{% macro sql_server_lsn_number(lsn_text) -%}
    case
        when {{ lsn_text }} rlike '^[0-9A-Fa-f]{8}:[0-9A-Fa-f]{8}:[0-9A-Fa-f]{4}$'
            then
                cast(conv(split_part({{ lsn_text }}, ':', 1), 16, 10) as decimal(38, 0))
                * cast(281474976710656 as decimal(38, 0))
                + cast(conv(split_part({{ lsn_text }}, ':', 2), 16, 10) as decimal(38, 0))
                * cast(65536 as decimal(38, 0))
                + cast(conv(split_part({{ lsn_text }}, ':', 3), 16, 10) as decimal(38, 0))
    end
{%- endmacro %}
