{# Post-hook of `int_cdc__row_history_delta`: stores the count of row versions loaded since
   the base's generation, and that generation, as the delta's table properties
   `cdc_lake.versions_since_base` and `cdc_lake.base_generation`, and of them the truncates
   and the partial changes (`cdc_lake.truncates_since_base`,
   `cdc_lake.partial_changes_since_base`), and their highest `ordering_key`
   (`cdc_lake.newest_ordering_key_since_base`, after the count it goes with and a colon:
   empty for none, `unknown`), as the run's
   query states them (the comment macro versions_since_base_note put at its head), for
   macros history_compaction_due, history_delta_kinds and history_in_order. One statement;
   none when the query states nothing. #}
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
