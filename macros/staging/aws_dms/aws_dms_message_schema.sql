{# from_json schema of an AWS DMS Kafka JSON message (data and control records). Row values
   are variant, as for Maxwell: DMS writes numbers as JSON numbers, and a variant keeps their
   digits. `control` (a control record's table definition) is its JSON text. The metadata
   fields are text, so a number or a quoted number reads alike. `before_image_field` is the
   BeforeImageSettings FieldName (checked by aws_dms_before_image_settings). #}
{% macro aws_dms_message_schema(before_image_field) -%}
    struct<
        data: map<string, variant>,
        `{{ before_image_field }}`: map<string, variant>,
        control: string,
        metadata: struct<
            timestamp: string,
            `record-type`: string,
            operation: string,
            `partition-key-type`: string,
            `partition-key-value`: string,
            `schema-name`: string,
            `table-name`: string,
            `transaction-id`: string,
            `transaction-record-id`: string,
            `prev-transaction-id`: string,
            `prev-transaction-record-id`: string,
            `commit-timestamp`: string,
            `stream-position`: string
        >,
        _corrupt_record: string
    >
{%- endmacro %}
