{# Reports (as a warning) every source column whose name is over the name limit of
   `cdc_lake_limits`. Such a name stays data in the row maps (checking every key of every
   row in staging cost about a second per million rows); a typed model leaves the column
   out, so this is where it is reported. #}
{{ config(severity='warn') }}

select
    table_key,
    left(column_name, 80) as column_name_start,
    length(column_name) as column_name_characters
from {{ ref('cdc_table_schemas') }}
where length(column_name) > {{ cdc_lake_limits().name_characters }}
