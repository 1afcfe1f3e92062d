{% macro debezium_message_schema(row_type='map<string, variant>') -%}
    {%- set envelope_fields -%}
        op: string,
        ts_ms: string,
        before: {{ row_type }},
        after: {{ row_type }},
        patch: string,
        filter: string,
        updateDescription: struct<
            updatedFields: string,
            removedFields: array<string>,
            truncatedArrays: array<struct<field: string, size: string>>
        >,
        source: struct<
            version: string, connector: string, name: string, ts_ms: string,
            snapshot: string, db: string, namespace: string, schema: string, table: string,
            collection: string, ord: string,
            txId: string, lsn: string, scn: string, commit_lsn: string, change_lsn: string,
            event_serial_no: string,
            file: string, pos: string, row: string, gtid: string
        >,
        transaction: struct<id: string, total_order: string, data_collection_order: string>,
        status: string,
        id: string,
        ddl: string,
        databaseName: string,
        tableChanges: variant
    {%- endset -%}
    struct<
        schema: struct<
            name: string,
            fields: array<struct<
                field: string,
                type: string,
                name: string,
                fields: array<struct<
                    field: string, type: string, name: string, parameters: map<string, string>
                >>
            >>
        >,
        payload: struct<{{ envelope_fields }}>,
        {{ envelope_fields }},
        _corrupt_record: string
    >
{%- endmacro %}
