{# The columns every staging model emits, in order:
   the contract between staging and everything after it. #}
{% macro staged_event_columns() -%}
    {{ return([
        'event_id', 'event_kind', 'source_format', 'source_op',
        'db_type', 'database_name', 'schema_name', 'table_name', 'table_key',
        'op', 'before_row', 'after_row', 'is_partial', 'unset_columns',
        'primary_key_columns', 'primary_key', 'previous_primary_key', 'column_types',
        'source_ts', 'sync_ts', 'event_sequence', 'source_log_position', 'ordering_key',
        'transaction_id', 'ddl_text', 'ddl_meta', 'rejection_reason', 'raw_value',
        'kafka_topic', 'kafka_partition', 'kafka_offset', 'source_file', 'source_position',
        'row_index', 'loaded_at',
    ]) }}
{%- endmacro %}
