with

change_log as (

    select * from {{ ref('int_cdc__change_log') }}

),

{# Each change under the key it leaves the row with. #}
keyed_changes as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        primary_key,
        op,
        op = 'delete' as is_deleted,
        before_row,
        after_row,
        is_partial,
        unset_columns,
        column_types,
        source_format,
        source_ts,
        sync_ts,
        ordering_key,
        event_id,
        loaded_at

    from change_log
    where op != 'truncate'

),

{# An update that changed the key also ends the row under its previous key. #}
key_move_ends as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        primary_key_columns,
        previous_primary_key as primary_key,
        op,
        true as is_deleted,
        before_row,
        cast(null as map<string, string>) as after_row,  -- noqa: LT01
        false as is_partial,
        unset_columns,
        column_types,
        source_format,
        source_ts,
        sync_ts,
        ordering_key,
        event_id,
        loaded_at

    from change_log
    where op != 'truncate' and previous_primary_key is not null

),

{# A truncate belongs to no key: it is kept once per table (primary_key NULL), and the
   history applies it to every key of the table. #}
truncates as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        cast(null as array<string>) as primary_key_columns,  -- noqa: LT01
        cast(null as string) as primary_key,
        op,
        true as is_deleted,
        cast(null as map<string, string>) as before_row,  -- noqa: LT01
        cast(null as map<string, string>) as after_row,  -- noqa: LT01
        false as is_partial,
        unset_columns,
        cast(null as map<string, string>) as column_types,  -- noqa: LT01
        source_format,
        source_ts,
        sync_ts,
        ordering_key,
        event_id,
        loaded_at

    from change_log
    where op = 'truncate'

),

final as (

    select * from keyed_changes

    union all

    select * from key_move_ends

    union all

    select * from truncates

)

select * from final
