{% macro recorded_loads(properties) -%}
    {%- set through = properties.get('cdc_lake.loads_read_through') -%}
    {%- if not through -%}
        {{ return({'through': none, 'after': none, 'loads': []}) }}
    {%- endif -%}
    {%- set loads = properties.get('cdc_lake.loads_read') or '' -%}
    {{ return({
        'through': through | int,
        'after': properties.get('cdc_lake.loads_read_after') | int,
        'loads': loads.split(',') | map('int') | list if loads else [],
    }) }}
{%- endmacro %}
