{% macro staging_contract_differences(model_name, columns) -%}
    {%- set contract = staged_event_contract() -%}
    {%- set contract_names = contract | map('first') | list -%}
    {%- set found_names = columns | map('first') | list -%}
    {%- set differences = [] -%}
    {%- for name, spark_type in contract -%}
        {%- if name not in found_names -%}
            {%- do differences.append([model_name, name, 'missing (' ~ spark_type ~ ')']) -%}
        {%- endif -%}
    {%- endfor -%}
    {%- set shared_in_contract_order = contract_names | select('in', found_names) | list -%}
    {%- set shared = [] -%}
    {%- for name, spark_type in columns -%}
        {%- if name not in contract_names -%}
            {%- do differences.append([model_name, name, 'not in the contract']) -%}
        {%- else -%}
            {%- set contract_index = contract_names.index(name) -%}
            {%- if contract[contract_index][1] != spark_type | lower -%}
                {%- do differences.append([
                    model_name, name,
                    spark_type ~ ', the contract says ' ~ contract[contract_index][1]
                ]) -%}
            {%- endif -%}
            {%- if shared_in_contract_order[shared | length] != name -%}
                {%- do differences.append([
                    model_name, name,
                    'out of order: the contract has it '
                    ~ ('first' if contract_index == 0
                        else 'after ' ~ contract_names[contract_index - 1])
                ]) -%}
            {%- endif -%}
            {%- do shared.append(name) -%}
        {%- endif -%}
    {%- endfor -%}
    {{ return(differences) }}
{%- endmacro %}
