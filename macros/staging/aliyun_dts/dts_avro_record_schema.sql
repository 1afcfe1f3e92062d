{% macro dts_avro_record_schema() -%}
    struct<
        version: int,
        id: bigint,
        source_timestamp: bigint,
        source_position: string,
        safe_source_position: string,
        source_txid: string,
        source: struct<sourceType: string, version: string>,
        operation: string,
        object_name: string,
        database_name: string,
        schema_name: string,
        table_name: string,
        process_timestamps: array<bigint>,
        tags: map<string, string>,
        fields: array<struct<name: string, data_type_number: int>>,
        before_images: map<string, string>,
        after_images: map<string, string>,
        ddl_text: string,
        born_timestamp: bigint
    >
{%- endmacro %}
