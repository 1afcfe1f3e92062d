{# The `final` CTE of every staging model: the contract's columns, in its order, picked by name
   from the format's last CTE, with the rules every format shares (see _macros.yml). #}
{% macro staged_event_projection(relation, source_format, absent=[]) -%}
    {%- set shared = {
        'event_kind':
            "case when rejection_reason is not null then 'rejected' else message_event_kind end",
        'source_format': "'" ~ source_format ~ "'",
        'op':
            "case when rejection_reason is null and message_event_kind = 'change'"
            ~ " then change_op end",
        'raw_value': 'case when rejection_reason is not null then raw_value_text end',
    } -%}
    {%- set absent_values = {
        'is_partial': 'false', 'unset_columns': 'array()', 'row_index': '0'
    } -%}
    {%- set contract_names = staged_event_columns() -%}
    {%- for name in absent if name not in contract_names or name in shared -%}
        {{ exceptions.raise_compiler_error(
            'staged_event_projection: ' ~ name ~ ' is not a column a format may leave out'
        ) }}
    {%- endfor -%}
    {%- set columns = [] -%}
    {%- for name, spark_type in staged_event_contract() -%}
        {%- if name in shared -%}
            {%- do columns.append('cast(' ~ shared[name] ~ ' as ' ~ spark_type ~ ') as ' ~ name) -%}
        {%- elif name in absent -%}
            {%- set value = absent_values.get(name, 'null') -%}
            {%- do columns.append('cast(' ~ value ~ ' as ' ~ spark_type ~ ') as ' ~ name) -%}
        {%- else -%}
            {%- do columns.append(name) -%}
        {%- endif -%}
    {%- endfor %}
final as (

    select
        {{ columns | join(',\n        ') }}

    from {{ relation }}

)
{%- endmacro %}
