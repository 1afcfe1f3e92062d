{% macro debezium_decimal_text(base64_text, scale) -%}
    get(transform(
        array(named_struct(
            'digits', hex(try_to_binary({{ base64_text }}, 'base64')),
            'scale', try_cast({{ scale }} as int)
        )),
        decimal_input -> get(transform(
            array(named_struct(
                'is_negative',
                try_cast(conv(left(decimal_input.digits, 1), 16, 10) as int) >= 8,
                'magnitude', case
                    when not length(decimal_input.digits) between 2 and 32 then null
                    when try_cast(conv(left(decimal_input.digits, 1), 16, 10) as int) >= 8
                        then translate(
                            decimal_input.digits, '0123456789ABCDEF', 'FEDCBA9876543210'
                        )
                    else decimal_input.digits
                end
            )),
            decimal_parts -> get(transform(
                array(cast(
                    try_add(
                        try_add(
                            try_multiply(
                                try_cast(coalesce(conv(nullif(left(
                                    decimal_parts.magnitude,
                                    length(decimal_parts.magnitude) - 16
                                ), ''), 16, 10), '0') as decimal(38, 0)),
                                cast(18446744073709551616 as decimal(38, 0))
                            ),
                            try_cast(
                                conv(right(decimal_parts.magnitude, 16), 16, 10)
                                as decimal(38, 0)
                            )
                        ),
                        case when decimal_parts.is_negative then 1 else 0 end
                    ) as string
                )),
                decimal_unscaled -> get(transform(
                    array(lpad(
                        decimal_unscaled,
                        greatest(length(decimal_unscaled), decimal_input.scale + 1),
                        '0'
                    )),
                    decimal_padded -> case
                        when
                            decimal_input.scale between 0 and 38
                            and decimal_unscaled is not null
                            then concat(
                                case when decimal_parts.is_negative then '-' else '' end,
                                left(
                                    decimal_padded,
                                    length(decimal_padded) - decimal_input.scale
                                ),
                                case
                                    when decimal_input.scale > 0
                                        then '.' || right(decimal_padded, decimal_input.scale)
                                    else ''
                                end
                            )
                    end
                ), 0)
            ), 0)
        ), 0)
    ), 0)
{%- endmacro %}
