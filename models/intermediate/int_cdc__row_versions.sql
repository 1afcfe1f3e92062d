{#- Stored, appended per run: the history models join it to itself several times, which
    Spark's analyzer plans far faster over a table than over the view chain. Staging marks
    each event's first delivery against everything it holds, so the changes loaded since the
    last run are exactly the ones not stored yet. -#}
{%- set new_loads = loaded_since_last_run(
    staged_loads(is_logged_change()), parents=staged_models()
) %}

with

change_log as (

    select * from {{ ref('int_cdc__change_log') }}
    where {{ new_loads }}

),

{# One row per change, and a second one (`is_key_move_end`) for an update that changed the
   key: it ends the row under its previous key. One pass over the change log rather than a
   union of three. #}
versions as (

    select
        change_log.*,
        key_move_end as is_key_move_end

    from change_log
        lateral view explode(
            case
                when op != 'truncate' and previous_primary_key is not null
                    then array(false, true)
                else array(false)
            end
        ) key_move_ends as key_move_end

),

{# Each change under the key it leaves the row with. A truncate belongs to no key: it is kept
   once per table (primary_key NULL, no images), and the history applies it to every key of
   the table. #}
final as (

    select
        table_key,
        database_name,
        schema_name,
        table_name,
        case when op != 'truncate' then primary_key_columns end as primary_key_columns,
        case
            when is_key_move_end then previous_primary_key
            when op != 'truncate' then primary_key
        end as primary_key,
        op,
        op in ('delete', 'truncate') or is_key_move_end as is_deleted,
        {# The fold reads a before image only for a delete (the row it ends) and a partial
           change (the values it overlays); a full image's would be stored for nothing. #}
        case
            when op != 'truncate' and (is_partial or op = 'delete' or is_key_move_end)
                then before_row
        end as before_row,
        case when op != 'truncate' and not is_key_move_end then after_row end as after_row,
        is_partial and op != 'truncate' and not is_key_move_end as is_partial,
        unset_columns,
        {# The id of the version's column-type map, not the map (macro column_types_id):
           cdc_row_history looks it up in the table sightings. #}
        case when op != 'truncate' then {{ column_types_id('column_types') }} end
            as column_types_id,
        source_format,
        source_ts,
        sync_ts,
        ordering_key,
        event_id,
        loaded_at

    from versions

)

{{ select_new_rows(new_loads) }}
