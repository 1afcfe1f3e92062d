{# A load time no load has (9999-12-31 23:59:59.999999, microseconds since 1970): macro
   load_times_condition pads its list of loads with the ten before it and it. #}
{% macro never_loaded_micros() -%}
    {{ return(253402300799999999) }}
{%- endmacro %}
