{#- What the row-changes loaded since the last run say about their tables, reduced per run to
    the little cdc_table_schemas needs: each table's latest change (where it lives, its key),
    its latest change that sends column types, and, from changes that send none, the latest
    sighting of each column in a row image. cdc_table_schemas reads these few rows, not the
    change log. -#}
with

row_changes as (

    select * from {{ ref('int_cdc__change_log') }}
    where op != 'truncate' and {{ loaded_since_last_run(ref('int_cdc__change_log')) }}

),

latest_changes as (

    {{ deduplicate(
        'row_changes',
        partition_by='table_key',
        order_by='ordering_key desc, event_id desc',
    ) }}

),

typed_changes as (

    select * from row_changes
    where size(column_types) > 0

),

latest_typed_changes as (

    {{ deduplicate(
        'typed_changes',
        partition_by='table_key',
        order_by='ordering_key desc, event_id desc',
    ) }}

),

image_columns as (

    select
        row_changes.table_key,
        image_columns.column_name,
        image_columns.column_index,
        row_changes.ordering_key,
        row_changes.event_id,
        row_changes.source_ts,
        row_changes.loaded_at

    from row_changes
        lateral view posexplode(array_distinct(concat(
            coalesce(map_keys(row_changes.after_row), array()),
            coalesce(map_keys(row_changes.before_row), array())
        ))) image_columns as column_index, column_name
    where coalesce(size(row_changes.column_types), 0) <= 0

),

latest_image_columns as (

    {{ deduplicate(
        'image_columns',
        partition_by='table_key, column_name',
        order_by='ordering_key desc, event_id desc',
    ) }}

),

final as (

    select
        'table' as sighting,
        table_key,
        database_name,
        schema_name,
        table_name,
        db_type,
        primary_key_columns,
        cast(null as map<string, string>) as column_types,  -- noqa: LT01
        cast(null as string) as column_name,  -- noqa: RF04
        cast(null as int) as column_index,
        ordering_key,
        event_id,
        source_ts,
        loaded_at
    from latest_changes

    union all

    select
        'typed' as sighting,
        table_key,
        database_name,
        schema_name,
        table_name,
        db_type,
        primary_key_columns,
        column_types,
        cast(null as string) as column_name,  -- noqa: RF04
        cast(null as int) as column_index,
        ordering_key,
        event_id,
        source_ts,
        loaded_at
    from latest_typed_changes

    union all

    select
        'column' as sighting,
        table_key,
        cast(null as string) as database_name,
        cast(null as string) as schema_name,  -- noqa: RF04
        cast(null as string) as table_name,  -- noqa: RF04
        cast(null as string) as db_type,
        cast(null as array<string>) as primary_key_columns,  -- noqa: LT01
        cast(null as map<string, string>) as column_types,  -- noqa: LT01
        column_name,
        column_index,
        ordering_key,
        event_id,
        source_ts,
        loaded_at
    from latest_image_columns

)

select * from final
