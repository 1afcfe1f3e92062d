-- depends_on: {{ ref('cdc_table_schemas') }}
{{ cdc_typed_current_state('test01.test') }}
