{# SQL: the JSON message to parse, with every number Spark's reader would respell (`1.50`,
   `1E+3`, more digits than a double keeps) as a string of its exact text. A regular
   expression picks the messages that may hold one (a match inside a string costs a UDF call
   and changes nothing); the others, and text that is not UTF-8 (which the UDF's Arrow batch
   could not even decode), go to from_json as they are. #}
{% macro json_numbers_as_sent(json_text) -%}
    {#- An object member's value (after `":`) that is such a number: anchored on `":`, the
        scan costs about 4 s per million messages; numbers inside arrays are not looked at. -#}
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
