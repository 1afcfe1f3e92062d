{#- The columns of every source table (int_cdc__table_columns, rebuilt only when what they
    are changed), with when each was last described, read from the sightings as they are
    now: a column the table's types describe, at the latest change that sent the types; a
    column known from row images, at its latest image; a column a DDL statement described
    last, at that statement (held by int_cdc__table_columns). -#}
with

table_columns as (

    select * from {{ ref('int_cdc__table_columns') }}

),

table_sightings as (

    select * from {{ ref('int_cdc__table_sightings') }}
    where {{ in_newest_generation(ref('int_cdc__table_sightings')) }}

),

{# One per table: its latest change that sends types. #}
typed_sightings as (

    select * from table_sightings
    where sighting = 'typed'

),

{# One per table and column: the column's latest row image (tables without types). #}
column_sightings as (

    select * from table_sightings
    where sighting = 'column'

),

final as (

    select
        ---------- keys
        table_columns.table_key,
        table_columns.column_name,
        ---------- where the table lives
        table_columns.database_name,
        table_columns.schema_name,
        table_columns.table_name,
        table_columns.db_type,
        ---------- the column
        table_columns.column_position,
        table_columns.source_type,
        table_columns.spark_type,
        table_columns.is_primary_key,
        table_columns.type_source,
        ---------- when it was last described
        case table_columns.type_source
            when 'message' then typed_sightings.source_ts
            when 'inferred' then column_sightings.source_ts
            else table_columns.last_seen_at
        end as last_seen_at,
        case table_columns.type_source
            when 'message' then typed_sightings.ordering_key
            when 'inferred' then column_sightings.ordering_key
            else table_columns.last_ordering_key
        end as last_ordering_key

    from table_columns
    left join typed_sightings
        on
            table_columns.type_source = 'message'
            and table_columns.table_key = typed_sightings.table_key
    left join column_sightings
        on
            table_columns.type_source = 'inferred'
            and table_columns.table_key = column_sightings.table_key
            and table_columns.column_name = column_sightings.column_name

)

select * from final
