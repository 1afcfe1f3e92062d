-- sqlfluff:indentation:template_blocks_indent:False
{#- The compacted part of the history: every version of every key, folded, as of the newest
    load it was built from (`generation`). Rebuilt only when compaction is due (macro
    history_compaction_due); other runs write nothing here, and int_cdc__row_history_delta
    carries what came since. cdc_row_history reads the two together. -#}
{#- Not due: write nothing, without planning the fold. -#}
{%- if history_compaction_due(ref('int_cdc__row_versions')) == 'false' %}

{{ writes_nothing(this) }}

{%- else %}

with

row_versions as (

    select * from {{ ref('int_cdc__row_versions') }}

),

key_versions as (

    select
        *,
        false as is_seed,
        cast(null as int) as seed_version_number,
        cast(null as timestamp) as seed_valid_from

    from row_versions
    where op != 'truncate'

),

table_truncates as (

    select * from row_versions
    where op = 'truncate'

),

{#- The versions as a whole decide what the fold needs (probes answered mostly from parquet
    statistics). -#}
{%- set kinds = history_version_kinds(ref('int_cdc__row_versions')) %}
{#- Stored by the post-hook record_history_base_size, for the delta's plans. #}
{{ version_kinds_note(kinds) }}
{{ fold_row_versions(
    'key_versions',
    'table_truncates',
    has_truncates=kinds.truncates,
    has_partial_changes=kinds.partial_changes,
) }},

{# The newest load folded in: what later runs compare against. #}
built_through as (

    select coalesce(unix_micros(max(loaded_at)), 0) as generation
    from row_versions

),

final as (

    select
        folded_history.* except (is_seed),
        built_through.generation

    from folded_history
    cross join built_through
    where folded_history.is_effective

)

select * from final

{%- endif %}
