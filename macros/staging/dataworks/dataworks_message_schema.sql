{% macro dataworks_message_schema() -%}
    struct<
        schema: struct<
            dataColumn: array<struct<name: string, type: string>>,
            primaryKey: array<string>,
            source: struct<
                dbType: string, dbVersion: string, dbName: string,
                schemaName: string, tableName: string
            >
        >,
        payload: struct<
            before: struct<dataColumn: map<string, variant>>,
            after: struct<dataColumn: map<string, variant>>,
            sequenceId: string,
            scn: string,
            op: string,
            timestamp: struct<eventTime: string, systemTime: string, checkpointTime: string>,
            ddl: struct<text: string, ddlMeta: string>
        >,
        version: string,
        _corrupt_record: string
    >
{%- endmacro %}
