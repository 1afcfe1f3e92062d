{% macro staged_loads(condition='true') -%}
    {%- set selects = [] -%}
    {%- for model in staged_models() -%}
        {%- do selects.append('select loaded_at from ' ~ model ~ ' where ' ~ condition) -%}
    {%- endfor -%}
    ({{ selects | join(' union all ') }}) as staged_loads
{%- endmacro %}
