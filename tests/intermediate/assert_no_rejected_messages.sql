{# Reports (as a warning: a run never dies on bad input) every message that could not be staged. #}
{{ config(severity='warn') }}

select
    source_format,
    rejection_reason,
    source_file,
    source_position,
    kafka_topic,
    kafka_partition,
    kafka_offset
from {{ ref('int_cdc__rejected_messages') }}
