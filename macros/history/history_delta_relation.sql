{% macro history_delta_relation() -%}
    {{ return(this.incorporate(path={'identifier': 'int_cdc__row_history_delta'})) }}
{%- endmacro %}
