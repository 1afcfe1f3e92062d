-- sqlfluff:indentation:template_blocks_indent:False
{#- The history rows that changed since `int_cdc__row_history_base` was built, one partition
    (`generation`) per run: each new version, and the stored version before it (its end moves).
    Changes that arrive in order are folded onto the key's stored latest version (a seed), so a
    run reads the new versions, not the history; a key with a late change (older than its
    stored latest, or than a truncate of its table) is refolded from all its versions. When
    every new version is newer than every stored one (macro history_in_order), no key can
    have a late change and the plan leaves that look-up out. Readers take, per version, the
    row of the newest generation (cdc_row_history). -#}
{%- set base = ref('int_cdc__row_history_base') -%}
{%- set row_versions_relation = ref('int_cdc__row_versions') -%}
{#- Where the base and this table have read up to (0 while dbt parses, and in the SQL
    linter, where `new_versions` is the general answer: the whole query). -#}
{%- set base_generation = newest_generation(base) -%}
{%- set own_generations = partition_generations(this) if execute and is_incremental() else [] -%}
{%- set covered_through = ([base_generation] + own_generations) | max -%}
{%- set new_versions = new_history_versions(
    row_versions_relation, 'timestamp_micros(' ~ covered_through ~ ')'
) -%}
{#- The stored rows read for the touched keys: those in the range of their keys. -#}
{%- set stored_key_range = 'true' if new_versions.low is none else (
    'primary_key between ' ~ new_versions.low ~ ' and ' ~ new_versions.high
) -%}
{#- The versions loaded since the base, by kind: for the next runs' compaction check and
    kinds (post-hook record_versions_since_base). -#}
{%- set since_base = versions_since_base(base_generation, own_generations, new_versions) -%}
{#- Without a truncate or a partial change, those parts of the query are left out of its
    plan. -#}
{%- set kinds = history_delta_kinds(row_versions_relation, base, base_generation, since_base) -%}
{%- set has_truncates = kinds.truncates -%}
{%- set has_partial_changes = kinds.partial_changes -%}
{%- set in_order = history_in_order(base, base_generation, since_base, new_versions, kinds) -%}

{{ versions_since_base_note(since_base, base_generation, kinds) }}

{#- Nothing new (or everything just compacted into the base): write nothing, without
    planning the fold. -#}
{%- if new_versions.condition == 'false' %}

{{ writes_nothing(this if is_incremental() else base) }}

{%- else %}

with

row_versions as (

    select * from {{ row_versions_relation }}

),

{# Only the stored rows whose key lies between the lowest and highest key touched now: the
   history's files keep their rows sorted by table and key, in pages of a few thousand rows
   (the models' `parquet.page.row.count.limit`), so parquet reads only the pages that hold such
   keys. Where changes follow time (new keys, updates to recent ones) that is a few pages of
   each file, not every stored current row; random keys span every page. #}
base_history as (

    select * from {{ base }}
    where generation = {{ base_generation }} and {{ stored_key_range }}

),

stored_delta as (

    select * from {{ this if is_incremental() else base }}
    where generation > {{ base_generation }} and {{ stored_key_range }}

),

{# Read by four parts of the query, stored_latest by two: each is computed once
   (macro computed_once) rather than scanned again by each reader. #}
new_versions as (

    select * from row_versions
    where {{ new_versions.condition }} and {{ computed_once() }}

),

{%- if has_truncates %}

truncates as (

    select * from row_versions
    where op = 'truncate'

),
{%- endif %}

touched_keys as (

    select
        table_key,
        primary_key,
        min(struct(ordering_key, event_id)) as first_new_version

    from new_versions
    where op != 'truncate'
    group by table_key, primary_key

),

{# The stored latest version of each touched key: the current row of the newest generation
   that holds the key (the base's, unless a delta generation replaced it). Every generation
   that changes a key stores its current row, so only the `is_current` partitions are read.
   The touched keys are broadcast: each stored row is looked up in them where it is read,
   not shuffled (with its images) to meet them. #}
stored_latest as (

    select * except (generation_rank)
    from (
        select
            *,
            row_number() over (
                partition by table_key, primary_key
                order by generation desc, version_number desc
            ) as generation_rank
        from (
            select /*+ broadcast(touched_keys) */ base_history.*
            from base_history
            left semi join touched_keys
                on
                    base_history.table_key = touched_keys.table_key
                    and base_history.primary_key = touched_keys.primary_key
            where base_history.is_current and base_history.is_effective

            union all

            select /*+ broadcast(touched_keys) */ stored_delta.*
            from stored_delta
            left semi join touched_keys
                on
                    stored_delta.table_key = touched_keys.table_key
                    and stored_delta.primary_key = touched_keys.primary_key
            where stored_delta.is_current and stored_delta.is_effective
        ) as stored_rows
    ) as ranked
    where generation_rank = 1 and {{ computed_once() }}

),

{%- if has_truncates %}

table_last_truncates as (

    select
        table_key,
        max(ordering_key) as last_truncate_ordering_key

    from truncates
    group by table_key

),

truncated_tables as (

    select distinct table_key from new_versions
    where op = 'truncate'

),
{%- endif %}

{%- if not in_order %}

{# Refolded from all their versions: keys with a change older than what is stored or than a
   truncate of their table, and every key of a table truncated now. #}
late_keys as (

    select
        touched_keys.table_key,
        touched_keys.primary_key

    from touched_keys
    inner join stored_latest
        on
            touched_keys.table_key = stored_latest.table_key
            and touched_keys.primary_key = stored_latest.primary_key
    where
        struct(stored_latest.valid_from_ordering_key, stored_latest.event_id)
        > touched_keys.first_new_version
    {% if has_truncates %}

    union

    select
        touched_keys.table_key,
        touched_keys.primary_key

    from touched_keys
    inner join table_last_truncates
        on touched_keys.table_key = table_last_truncates.table_key
    where
        table_last_truncates.last_truncate_ordering_key
        > touched_keys.first_new_version.ordering_key

    union

    select /*+ broadcast(truncated_tables) */
        row_versions.table_key,
        row_versions.primary_key

    from row_versions
    left semi join truncated_tables
        on row_versions.table_key = truncated_tables.table_key
    where row_versions.op != 'truncate'
    {% endif %}

),

{# Broadcast: late keys are few (none while changes arrive in order, and then Spark skips
   the scan of the versions). #}
late_key_versions as (

    select /*+ broadcast(late_keys) */
        row_versions.*,
        false as is_seed,
        cast(null as int) as seed_version_number,
        cast(null as timestamp) as seed_valid_from

    from row_versions
    left semi join late_keys
        on
            row_versions.table_key = late_keys.table_key
            and row_versions.primary_key = late_keys.primary_key
    where row_versions.op != 'truncate'

),
{%- endif %}

{# A key's stored latest version as a full image (the row as it was), for the fold. #}
seeds as (

    select
        stored_latest.table_key,
        stored_latest.database_name,
        stored_latest.schema_name,
        stored_latest.table_name,
        stored_latest.primary_key_columns,
        stored_latest.primary_key,
        stored_latest.op,
        stored_latest.is_deleted,
        case when stored_latest.is_deleted then stored_latest.row_data end as before_row,
        case when not stored_latest.is_deleted then stored_latest.row_data end as after_row,
        {# A partial seed opens its key's fold: it overlays its whole row on nothing. #}
        stored_latest.is_partial,
        cast(array() as array<string>) as unset_columns,  -- noqa: LT01
        stored_latest.column_types_id,
        stored_latest.source_format,
        stored_latest.source_ts,
        cast(null as timestamp) as sync_ts,
        stored_latest.valid_from_ordering_key as ordering_key,
        stored_latest.event_id,
        stored_latest.loaded_at,
        true as is_seed,
        stored_latest.version_number as seed_version_number,
        stored_latest.valid_from as seed_valid_from

    from stored_latest
    {% if not in_order %}
    left anti join late_keys
        on
            stored_latest.table_key = late_keys.table_key
            and stored_latest.primary_key = late_keys.primary_key
    {% endif %}

),

in_order_versions as (

    select
        new_versions.*,
        false as is_seed,
        cast(null as int) as seed_version_number,
        cast(null as timestamp) as seed_valid_from

    from new_versions
    {% if not in_order %}
    left anti join late_keys
        on
            new_versions.table_key = late_keys.table_key
            and new_versions.primary_key = late_keys.primary_key
    {% endif %}
    where new_versions.op != 'truncate'

),

key_versions as (

    {% if not in_order %}
    select * from late_key_versions
    union all
    {% endif %}
    select * from seeds
    union all
    select * from in_order_versions

),

{%- if has_truncates %}

table_truncates as (

    select * from truncates
    where
        table_key in (select touched_keys.table_key from touched_keys)
        or table_key in (select truncated_tables.table_key from truncated_tables)

),
{%- endif %}

{{ fold_row_versions(
    'key_versions',
    'table_truncates',
    has_truncates=has_truncates,
    has_partial_changes=has_partial_changes,
) }},

{# A seed comes out as the stored version it stands for, its end moved. #}
changed_rows as (

    select * except (is_seed) from folded_history

),

{%- if new_versions.through is none %}

{# The newest load these rows account for: what the next run compares against. The probe
   names it (below), unless the run reads more loads than it lists. #}
built_through as (

    select coalesce(unix_micros(max(loaded_at)), 0) as generation
    from new_versions

),
{%- endif %}

{# Rebalanced by the partitions written: Spark sizes the write by the data (a file per
   partition for a run's few thousand rows, more for a large catch-up), where the fold's
   shuffle partitions wrote many small files a run, each for every later run to open. #}
final as (

    select /*+ rebalance(generation, is_current) */
        changed_rows.*,
        {% if new_versions.through is not none %}
        cast({{ new_versions.through }} as bigint) as generation
        {% else %}
        built_through.generation
        {% endif %}

    from changed_rows
    {% if new_versions.through is none %}
    cross join built_through
    {% endif %}

)

select * from final

{%- endif %}
