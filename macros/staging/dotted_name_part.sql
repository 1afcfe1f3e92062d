{% macro dotted_name_part(qualified_name, part, two_part_prefix) -%}
{%- set parts = "split(" ~ qualified_name ~ ", '[.]')" -%}
    case
        when
            coalesce({{ qualified_name }}, '') = ''
            or array_contains({{ parts }}, '')
            or size({{ parts }}) > 3
            then null
{%- if part == 'table' %}
            else element_at({{ parts }}, -1)
        {%- elif part == 'schema' %}
            when size({{ parts }}) = 3 then element_at({{ parts }}, 2)
{%- if two_part_prefix == 'schema' %}
                when size({{ parts }}) = 2 then element_at({{ parts }}, 1)
            {%- endif %}
        {%- elif part == 'database' %}
            when size({{ parts }}) = 3 then element_at({{ parts }}, 1)
{%- if two_part_prefix == 'database' %}
                when size({{ parts }}) = 2 then element_at({{ parts }}, 1)
{%- endif %}
{%- endif %}
    end
{%- endmacro %}
