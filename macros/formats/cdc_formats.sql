{% macro cdc_formats() -%}
    {{ return([
        {'format': 'dataworks_json', 'source': 'dataworks', 'model': 'stg_dataworks__json'},
        {'format': 'datahub_blob', 'source': 'datahub', 'model': 'stg_datahub__blob'},
        {'format': 'datahub_tuple', 'source': 'datahub', 'model': 'stg_datahub__tuple'},
        {
            'format': 'dts_shareplex_json',
            'source': 'aliyun_dts',
            'model': 'stg_aliyun_dts__shareplex_json',
        },
        {'format': 'canal_json', 'source': 'canal', 'model': 'stg_canal__json'},
        {
            'format': 'dts_canal_json',
            'source': 'aliyun_dts',
            'model': 'stg_aliyun_dts__canal_json',
        },
        {'format': 'drs_json', 'source': 'huawei_drs', 'model': 'stg_huawei_drs__json'},
        {'format': 'drs_json_c', 'source': 'huawei_drs', 'model': 'stg_huawei_drs__json_c'},
        {'format': 'drs_mongo', 'source': 'huawei_drs', 'model': 'stg_huawei_drs__mongo'},
        {'format': 'dts_avro', 'source': 'aliyun_dts', 'model': 'stg_aliyun_dts__avro'},
        {'format': 'lindorm_json', 'source': 'lindorm', 'model': 'stg_lindorm__json'},
        {'format': 'debezium_json', 'source': 'debezium', 'model': 'stg_debezium__json'},
        {'format': 'maxwell_json', 'source': 'maxwell', 'model': 'stg_maxwell__json'},
        {'format': 'ogg_json', 'source': 'ogg', 'model': 'stg_ogg__json'},
        {'format': 'aws_dms_json', 'source': 'aws_dms', 'model': 'stg_aws_dms__json'},
    ]) }}
{%- endmacro %}
