{% macro huawei_drs_mongo_message_schema() -%}
    struct<
        id: string,
        op: string,
        dbType: string,
        db: string,
        coll: string,
        value: string,
        where: string,
        recordType: string,
        extra: string,
        es: string,
        ts: string,
        clusterTime: string,
        _corrupt_record: string
    >
{%- endmacro %}
