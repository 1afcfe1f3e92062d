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
