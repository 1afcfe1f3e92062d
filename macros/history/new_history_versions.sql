{% macro new_history_versions(relation, after, max_loads=1000) -%}
    {%- if not execute -%}
        {{ return({
            'condition': 'true',
            'low': none,
            'high': none,
            'count': 0,
            'new_truncates': 0,
            'new_partial_changes': 0,
            'first_ordering_key': none,
            'last_ordering_key': none,
            'through': none,
        }) }}
    {%- endif -%}
    {%- set probe_sql -%}
        select
            new_versions.load_micros,
            new_versions.low_key,
            new_versions.high_key,
            new_versions.longest_key,
            new_versions.version_count,
            new_versions.truncate_count,
            new_versions.partial_count,
            new_versions.first_ordering_key,
            new_versions.last_ordering_key
        from (
            select
                array_join(cast(slice(
                    array_sort(collect_set(unix_micros(loaded_at))), 1, {{ max_loads + 1 }}
                ) as array<string>), ' ') as load_micros,
                base64(cast(min(touched_key) as binary)) as low_key,
                base64(cast(max(touched_key) as binary)) as high_key,
                coalesce(max(length(touched_key)), 0) as longest_key,
                count(*) as version_count,
                count_if(op = 'truncate') as truncate_count,
                count_if(is_partial) as partial_count,
                'k' || min(touched_ordering_key) as first_ordering_key,
                'k' || max(touched_ordering_key) as last_ordering_key
            from (
                select
                    loaded_at,
                    op,
                    is_partial,
                    case when op != 'truncate' then primary_key end as touched_key,
                    case when op != 'truncate' then ordering_key end as touched_ordering_key
                from {{ relation }}
                where loaded_at > {{ after }}
            ) as versions
        ) as new_versions
    {%- endset -%}
    {%- set found = run_query(probe_sql).rows[0] -%}
    {#- Text, unless one load made it a number (dbt infers the types of what it reads). -#}
    {%- set loads = (found[0] | string).split(' ') | map('int') | list if found[0] else [] -%}
    {%- set has_range = found[1] is not none and found[3] <= 1024 -%}
    {#- Prefixed in the probe: digits and dots alone may come back as a number. -#}
    {%- set first_key = ordering_key_text(found[7][1:]) if found[7] else none -%}
    {%- set last_key = ordering_key_text(found[8][1:]) if found[8] else none -%}
    {%- set has_order = first_key and last_key -%}
    {{ return({
        'condition': load_times_condition(loads, 'loaded_at', max_loads),
        'low': "cast(unbase64('" ~ found[1] ~ "') as string)" if has_range else none,
        'high': "cast(unbase64('" ~ found[2] ~ "') as string)" if has_range else none,
        'count': found[4] | int,
        'new_truncates': found[5] | int,
        'new_partial_changes': found[6] | int,
        'first_ordering_key': first_key if has_order else none,
        'last_ordering_key': last_key if has_order else none,
        'through': loads[-1] if loads and loads | length <= max_loads else none,
    }) }}
{%- endmacro %}
