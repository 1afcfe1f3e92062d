{# Deterministic event id: the first 128 bits of the sha-256 of the identifying parts, as 32
   hex digits, so a re-delivered message gets the same id. 128 bits keep collisions out of
   reach (about 1e-15 at a trillion events) at half the bytes of the whole digest: the id is
   stored in every model and is the key of every de-duplication and join, and 64 random hex
   digits were half the bytes of a staged row. The row's `source_name` column, when set, is
   a part too (a NULL one adds nothing, so unnamed sources keep their ids): the same message
   from two sources is two events. #}
{% macro event_id(parts) -%}
    {%- set texts = [] -%}
    {%- for part in parts -%}
        {%- do texts.append("coalesce(cast(" ~ part ~ " as string), '')") -%}
    {%- endfor -%}
    left(sha2(concat_ws('|', {{ texts | join(', ') }}, source_name), 256), 32)
{%- endmacro %}
