{# Every landed message is accounted for exactly once (int_cdc__message_accounting): changes,
   heartbeats, schema changes, transaction markers, tombstones, rejected, or a duplicate of an
   earlier delivery. An error, not a warning: bad input ends as rejected rows, so a message
   that is lost or counted twice is a bug of this project, and the marts cannot be trusted. #}
{{ config(severity='error') }}

select
    source_format,
    accounting_error,
    source_file,
    source_position,
    loaded_at,
    staged_rows,
    unaccounted_rows
from {{ ref('int_cdc__message_accounting') }}
where is_unaccounted
