{# from_json schema of a Debezium-style message (open-source Debezium, Alibaba Lindorm): the
   envelope both bare and under `payload` (Kafka Connect JSON converter with schemas), so that
   one parse reads either layout. `before`/`after` are `row_type`: a row object as a map of
   variants, or (Debezium, whose MongoDB connector sends documents as Extended JSON strings)
   variant; `patch`, `filter` (MongoDB connector 1.x) and `updateDescription` (2.x) are
   MongoDB's alone. #}
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
