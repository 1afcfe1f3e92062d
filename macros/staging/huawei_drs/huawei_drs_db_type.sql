{% macro huawei_drs_db_type(db_type) -%}
    case
        when {{ db_type }} is null then 'mysql'
        when lower({{ db_type }}) like '%mysql%' then 'mysql'
        when lower({{ db_type }}) like '%gauss%' then 'gaussdb'
        when lower({{ db_type }}) like '%postgre%' then 'postgresql'
        when lower({{ db_type }}) like '%oracle%' then 'oracle'
        when lower({{ db_type }}) like '%sql%server%' then 'sqlserver'
        when lower({{ db_type }}) like '%mongo%' then 'mongodb'
        else lower(regexp_replace({{ db_type }}, '[^A-Za-z0-9]', ''))
    end
{%- endmacro %}
