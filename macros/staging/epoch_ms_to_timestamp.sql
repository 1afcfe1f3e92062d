{% macro epoch_ms_to_timestamp(epoch_ms) -%}
    case
        when try_cast({{ epoch_ms }} as bigint) between -62135596800000 and 253402300799999
            then timestamp_millis(try_cast({{ epoch_ms }} as bigint))
    end
{%- endmacro %}
