{% macro json_numbers_as_sent(json_text) -%}
    {#- An object member's value (after `":`) that is such a number; anchored on `":` to keep
        the scan cheap, so numbers inside arrays are not looked at. -#}
    {%- set may_be_respelled = (
        '": *-?(?:[0-9]+(?:[.][0-9]*0|[eE][-+]?[0-9]+)[^0-9A-Za-z.+-]'
        ~ '|(?=[0-9.]{17})[0-9]*[.])'
    ) -%}
    coalesce(
        json_numbers_as_text(
            case
                when
                    {{ json_text }} rlike '{{ may_be_respelled }}'
                    and is_valid_utf8({{ json_text }})
                    then {{ json_text }}
            end
        ),
        {{ json_text }}
    )
{%- endmacro %}
