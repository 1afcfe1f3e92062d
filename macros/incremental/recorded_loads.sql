{# What an appended table's `properties` record of the loads it has read (macro
   loads_read_properties): `through`, the newest, none when unknown (never recorded, or a run
   stopped between its insert and its record); `loads`, in ascending order, microseconds
   since 1970: every load later than `after` and through `through` that it holds rows of. #}
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
