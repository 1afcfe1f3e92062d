{# from_json schema of a Debezium-style message (open-source Debezium, Alibaba Lindorm): the
   envelope both bare and under `payload` (Kafka Connect JSON converter with schemas), so that
   one parse reads either layout. Row values are variant: numbers keep their exact digits. #}
{% macro debezium_message_schema() -%}
    {%- set envelope_fields -%}
        op: string,
        ts_ms: string,
        before: map<string, variant>,
        after: map<string, variant>,
        source: struct<
            version: string, connector: string, name: string, ts_ms: string,
            snapshot: string, db: string, namespace: string, schema: string, table: string,
            txId: string, lsn: string, scn: string, commit_lsn: string, change_lsn: string,
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
                fields: array<struct<field: string, type: string, name: string>>
            >>
        >,
        payload: struct<{{ envelope_fields }}>,
        {{ envelope_fields }},
        _corrupt_record: string
    >
{%- endmacro %}
