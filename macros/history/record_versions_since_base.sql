{% macro record_versions_since_base(relation) -%}
    {%- set note = modules.re.search(
        '/\\* cdc_lake\\.versions_since_base: (\\d+) since (\\d+); '
        ~ 'truncates (\\d+); partial changes (\\d+); '
        ~ 'newest ordering key ([0-9.]*|unknown) \\*/',
        (model.compiled_code or '') if execute else ''
    ) -%}
    {%- if note -%}
        alter table {{ relation }} set tblproperties (
            'cdc_lake.truncates_since_base' = '{{ note.group(3) }}',
            'cdc_lake.partial_changes_since_base' = '{{ note.group(4) }}',
            'cdc_lake.newest_ordering_key_since_base' = '{{ note.group(1) }}:{{ note.group(5) }}',
            'cdc_lake.versions_since_base' = '{{ note.group(1) }}',
            'cdc_lake.base_generation' = '{{ note.group(2) }}'
        )
    {%- endif -%}
{%- endmacro %}
