{# The lowest and highest primary_key among the versions of `relation` where `condition`
   holds, as SQL string expressions (none when there is no key, or one is longer than the
   bound below; then the caller reads without a key range). Base64 in the SQL text: a key is
   message content. See _macros.yml. #}
{% macro touched_key_range(relation, condition) -%}
    {%- set no_range = {'low': none, 'high': none} -%}
    {%- if not execute -%}
        {{ return(no_range) }}
    {%- endif -%}
    {%- set probe_sql -%}
        select
            base64(cast(min(touched_key) as binary)),
            base64(cast(max(touched_key) as binary)),
            coalesce(max(length(touched_key)), 0)
        from (
            select case when op != 'truncate' then primary_key end as touched_key
            from {{ relation }}
            where {{ condition }}
        ) as new_versions
    {%- endset -%}
    {%- set found = run_query(probe_sql).rows[0] -%}
    {%- if found[0] is none or found[2] > 1024 -%}
        {{ return(no_range) }}
    {%- endif -%}
    {{ return({
        'low': "cast(unbase64('" ~ found[0] ~ "') as string)",
        'high': "cast(unbase64('" ~ found[1] ~ "') as string)",
    }) }}
{%- endmacro %}
