"""Byte encodings that sync tools put in text columns, turned into the change log's base64.

Huawei DRS writes binary columns as a list of signed or unsigned byte values, `"[106, 103]"`
(Java's `Arrays.toString(byte[])` gives signed values, -128..127; some writers give 0..255).
Spark SQL could take such a list apart with `from_json` and `transform`, but could not
validate it and say what is wrong, so this is a UDF. Hex (`bytea`) and base64-to-text need no
UDF: Spark's `unhex`, `unbase64` and `decode` do the job (see the README's UDF table).
"""

from __future__ import annotations

import base64
import re

# A list longer than this is not a column value anyone meant to replicate (and would cost
# memory for nothing): it is reported instead of decoded.
MAX_BYTE_LIST_ITEMS = 16 * 1024 * 1024
# ASCII decimal only: Python's int() would also take "1_0" and non-ASCII digits.
BYTE_ITEM = re.compile(r"[+-]?[0-9]+")


def decode_byte_list(text: str | None) -> tuple[str | None, str | None]:
    """`"[106, 103, 111]"` -> (`"amdv"`, None); bad input -> (None, reason); NULL -> (None, None).

    Accepts signed (-128..127, as Java prints `byte[]`) and unsigned (0..255) values, any
    whitespace, and `[]` for empty bytes.
    """
    if text is None:
        return None, None
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        return None, "byte list must be enclosed in [ ]"
    inner = body[1:-1].strip()
    if not inner:
        return "", None
    items = inner.split(",")
    if len(items) > MAX_BYTE_LIST_ITEMS:
        return None, f"byte list longer than {MAX_BYTE_LIST_ITEMS} items"
    out = bytearray()
    for position, item in enumerate(items):
        token = item.strip()
        if not BYTE_ITEM.fullmatch(token):
            return None, f"item {position} is not an integer: {token[:20]!r}"
        number = int(token)
        if not -128 <= number <= 255:
            return None, f"item {position} is out of the byte range -128..255: {number}"
        out.append(number & 0xFF)
    return base64.b64encode(bytes(out)).decode("ascii"), None
