{% macro canal_es_ms(message) -%}
    case
        when try_cast({{ message }}.es as bigint) >= 0
            then try_cast({{ message }}.es as bigint)
    end
{%- endmacro %}
