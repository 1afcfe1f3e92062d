{% macro record_history_base_size(relation) -%}
    {%- if execute and not is_writing_nothing(relation) -%}
        {#- Prefixed: digits and dots alone may come back as a number. -#}
        {%- set size = run_query(
            "select count(*), max(generation), 'k' || coalesce(max(valid_from_ordering_key), '')"
            ~ ' from ' ~ relation
        ).rows[0] -%}
        {%- set kinds = modules.re.search(
            '/\\* cdc_lake\\.version_kinds: truncates (true|false); '
            ~ 'partial changes (true|false) \\*/',
            model.compiled_code or ''
        ) -%}
        {%- set recorded = [
            "'cdc_lake.row_count' = '" ~ size[0] ~ "'",
            "'cdc_lake.generation' = '" ~ (size[1] or 0) ~ "'",
        ] -%}
        {%- set newest = ordering_key_text((size[2] | string)[1:]) -%}
        {%- do recorded.append("'cdc_lake.newest_ordering_key' = '" ~ (
            newest if newest is not none else 'unknown'
        ) ~ "'") -%}
        {%- if kinds -%}
            {%- do recorded.append("'cdc_lake.truncates' = '" ~ kinds.group(1) ~ "'") -%}
            {%- do recorded.append("'cdc_lake.partial_changes' = '" ~ kinds.group(2) ~ "'") -%}
        {%- endif %}
        alter table {{ relation }} set tblproperties ({{ recorded | join(', ') }})
    {%- endif -%}
{%- endmacro %}
