{# The `int_cdc__row_history_delta` relation beside the calling model (the history base, in
   the same schema): not a ref, since the delta refs the base, and a ref back would be a
   cycle. Read from dbt's relation cache; no statement. #}
{% macro history_delta_relation() -%}
    {{ return(this.incorporate(path={'identifier': 'int_cdc__row_history_delta'})) }}
{%- endmacro %}
