{% macro aws_dms_before_image_settings() -%}
    {%- set allowed = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.$-' -%}
    {%- set settings = {
        'field': var('aws_dms_json_before_image_field', 'before-image') | string,
        'prefix': var('aws_dms_json_before_image_prefix', 'BI_') | string,
        'suffix': var('aws_dms_json_before_image_suffix', '') | string,
    } -%}
    {%- for name, value in settings.items() -%}
        {%- set shortest = 1 if name == 'field' else 0 -%}
        {%- set odd = value | list | reject('in', allowed) | list -%}
        {%- if odd or value | length < shortest or value | length > 128
            or value in ('data', 'metadata', 'control', '_corrupt_record') -%}
            {{ exceptions.raise_compiler_error(
                'var aws_dms_json_before_image_' ~ name ~ ': ' ~ shortest ~ ' to 128 of '
                ~ 'A-Z a-z 0-9 _ . $ -, not data, metadata or control (got ' ~ value ~ ')'
            ) }}
        {%- endif -%}
    {%- endfor -%}
    {{ return(settings) }}
{%- endmacro %}
