"""JSON numbers as the source wrote them: `1.50` stays `1.50`, not `1.5`.

Spark's JSON reader turns a number into a double before it gives it back as text: into a
string field it writes `1.50` as `1.5`, `1E+3` as `1000.0` and 19 significant digits as 17,
and a variant keeps no trailing zeros either. A price's scale is data, and the contract keeps
values as sent. So staging gives Spark a message whose numbers that Spark would respell are
JSON strings of their exact text (`"1.50"`); Spark's own parser then reads the message at its
own speed and the row images hold the text. Integers keep their digits in Spark already and
stay numbers (envelope fields such as Canal's `es` are integers). Only messages in which a
regular expression (macro `json_numbers_as_sent`) sees such a number reach this function.
"""

from __future__ import annotations

import re

# A JSON string (skipped whole, so digits inside text are never touched) or a JSON number.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|-?(?:0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE][+-]?[0-9]+)?')
# Doubles keep 15 significant digits exactly; a fraction longer than that may be rounded.
_EXACT_DIGITS = 15


def respelled_by_spark(number: str) -> bool:
    """True for a JSON number Spark would not write back as sent: an exponent, a fraction
    ending in 0, or a fraction with more digits than a double keeps."""
    if "e" in number or "E" in number:
        return True
    whole, dot, fraction = number.lstrip("-").partition(".")
    if not dot:
        return False
    return fraction.endswith("0") or len(whole.lstrip("0")) + len(fraction) > _EXACT_DIGITS


def json_numbers_as_text(text: str | None) -> tuple[str | None, str | None]:
    """The JSON text with every number Spark would respell turned into a string of its exact
    spelling; anything else (strings, integers, structure, even invalid JSON) unchanged, so
    a message Spark cannot read stays one it cannot read. Never an error."""
    if text is None:
        return None, None

    def quote(match: re.Match[str]) -> str:
        token = match.group(0)
        if token.startswith('"') or not respelled_by_spark(token):
            return token
        return f'"{token}"'

    return _TOKEN.sub(quote, text), None
