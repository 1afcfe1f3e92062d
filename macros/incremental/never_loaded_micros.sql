{% macro never_loaded_micros() -%}
    {{ return(253402300799999999) }}
{%- endmacro %}
