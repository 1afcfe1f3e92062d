{# The staging contract: every staging model's columns, in order, with their Spark types.
   Everything after staging reads only these; `assert_staging_models_emit_the_contract`
   checks every enabled staging model against it. #}
{% macro staged_event_contract() -%}
    {{ return([
        ['event_id', 'string'],
        ['event_kind', 'string'],
        ['source_format', 'string'],
        ['source_op', 'string'],
        ['db_type', 'string'],
        ['database_name', 'string'],
        ['schema_name', 'string'],
        ['table_name', 'string'],
        ['table_key', 'string'],
        ['op', 'string'],
        ['before_row', 'map<string,string>'],
        ['after_row', 'map<string,string>'],
        ['is_partial', 'boolean'],
        ['unset_columns', 'array<string>'],
        ['primary_key_columns', 'array<string>'],
        ['primary_key', 'string'],
        ['previous_primary_key', 'string'],
        ['column_types', 'map<string,string>'],
        ['source_ts', 'timestamp'],
        ['sync_ts', 'timestamp'],
        ['event_sequence', 'string'],
        ['source_log_position', 'string'],
        ['ordering_key', 'string'],
        ['transaction_id', 'string'],
        ['ddl_text', 'string'],
        ['ddl_meta', 'string'],
        ['ddl_summary', 'struct<ddl_text:string,statement_type:string,db_type:string,'
            ~ 'table_name:string,columns:array<struct<action:string,name:string,'
            ~ 'new_name:string,data_type:string>>>'],
        ['ddl_meta_error', 'string'],
        ['rejection_reason', 'string'],
        ['raw_value', 'string'],
        ['kafka_topic', 'string'],
        ['kafka_partition', 'int'],
        ['kafka_offset', 'bigint'],
        ['source_file', 'string'],
        ['source_position', 'bigint'],
        ['row_index', 'int'],
        ['loaded_at', 'timestamp'],
        ['is_first_delivery', 'boolean'],
    ]) }}
{%- endmacro %}
