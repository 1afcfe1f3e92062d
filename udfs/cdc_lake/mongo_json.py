"""MongoDB shell-style JSON, as Huawei DRS writes `value` and `where` for DDS, to strict JSON.

DRS writes a DDS change as the mongo shell prints a document (`{"_id": ObjectId("...")}`), not
as JSON, so Spark's `from_json` cannot read it. This module rewrites such text as strict JSON in
MongoDB Extended JSON v2, which `from_json` (and every MongoDB tool) can read. It is a small
hand-written parser rather than a regex rewrite because a regex cannot tell `ObjectId(` inside a
string from a real constructor, and rather than a JavaScript engine because the input is data
from a Kafka topic, never code to run.

Accepted syntax, on top of JSON (objects, arrays, strings, numbers, true, false, null):

- single-quoted strings (`'abc'`, the shell allows them), with the JSON escapes plus the
  JavaScript `\\'`, `\\v`, `\\0`, `\\xHH` and backslash-newline (line continuation); any other
  escape is rejected, as is a raw line break or control character inside a string;
- unquoted keys that are identifiers, `$` included (`{$set: {a: 1}}`);
- JSON whitespace (space, tab, CR, LF) between any two tokens;
- an optional `new` before any constructor (`new Date(0)`, `new BinData(0, "")`).

Shell values and what they become (Extended JSON v2, canonical where the type would otherwise be
lost, and bare JSON where the shell text itself is bare):

| shell text | strict JSON |
| --- | --- |
| `ObjectId("64650cf6...")` (24 hex digits) | `{"$oid":"64650cf6..."}`, hex in lower case |
| `ISODate("...")`, `new Date(...)`, `Date(...)` | `{"$date":"2023-05-17T17:26:46.123Z"}` |
| `NumberLong(123)`, `NumberLong("123")` | `{"$numberLong":"123"}` (64-bit range checked) |
| `NumberInt(5)`, `NumberInt("5")` | `{"$numberInt":"5"}` (32-bit range checked) |
| `NumberDecimal("1.10")` (or a number) | `{"$numberDecimal":"1.10"}`, the text exactly as written |
| `Timestamp(1684314406, 1)` | `{"$timestamp":{"t":1684314406,"i":1}}` (two unsigned 32-bit) |
| `BinData(0, "base64")` | `{"$binary":{"base64":"...","subType":"00"}}` |
| `UUID("0123...")` (32 hex, dashes optional) | `{"$binary":{"base64":"...","subType":"04"}}` |
| `MinKey`, `MaxKey` (or `MinKey()`) | `{"$minKey":1}`, `{"$maxKey":1}` |
| `/pattern/flags` | `{"$regularExpression":{"pattern":"...","options":"..."}}` |
| `NaN`, `Infinity`, `-Infinity` | `{"$numberDouble":"NaN"}`, `..."Infinity"`, `..."-Infinity"` |
| `undefined` | `null` (the BSON undefined type is deprecated; null is what it means) |

Conventions, and why:

- Bare numbers are copied as written, never through float or int: their BSON type is not in the
  text (Java prints int32 and double bare, the shell reads them as doubles) and their digits
  must reach the change log unchanged. Constructors keep their type, in canonical form, because
  a bare number would lose it (`NumberInt(5)` is `{"$numberInt":"5"}`, not `5`).
- Dates are the ISO-8601 UTC string with milliseconds, Extended JSON's relaxed form: readable,
  and Spark's `to_timestamp` takes it. Accepted date strings are `YYYY-MM-DD`, optionally with
  `T` (or a space) and `HH:MM[:SS[.fraction]]`, optionally with `Z` or an offset (`+08:00`,
  `+0800`, `+08`); no offset means UTC (as the shell reads it); a fraction beyond milliseconds
  is truncated (BSON dates hold milliseconds). A number is epoch milliseconds (an integer).
  Dates outside years 1..9999 have no ISO form and stay canonical:
  `{"$date":{"$numberLong":"..."}}`. `Date()` with no argument (the current time) is rejected.
- Binary base64 is re-encoded in its canonical form; the subtype is two lower-case hex digits.
- Regular expressions: `\\/` in the pattern becomes `/` (the shell escapes it, BSON does not);
  other escapes are kept as written. Options must be MongoDB's (`i l m s u x`) and come out
  sorted (canonical Extended JSON); JavaScript-only flags (`g`, `y`, `d`) are rejected.
- Duplicate keys: the last value wins, at the place of the first (what the shell's JavaScript,
  and every JSON reader downstream, would make of the same text).
- Output: compact (`,` and `:`), non-ASCII kept as UTF-8, key order preserved. Strings are
  re-escaped, so a lone UTF-16 surrogate (which UTF-8 cannot carry) is rejected.
- Existing Extended JSON (`{"$oid": "..."}`) is an ordinary document here and passes through,
  as do `$set` / `$unset` update documents and dotted paths like `"a.b"`.
- Not accepted (the reason names them): comments, trailing commas, unquoted non-identifier keys,
  mongosh's `Long(...)`, `Int32(...)`, `Decimal128(...)` and `Timestamp({t, i})`, and the
  rarely printed `DBRef`, `DBPointer`, `Code`, `Symbol`, `HexData` constructors.

Every function returns `(result, None)`, `(None, reason)` for bad input or `(None, None)` for
NULL, and never raises: it runs inside a Spark task, where an exception would fail the whole dbt
run instead of sending one message to the rejected-messages model. Input is bounded in length and
nesting depth, and the parser keeps its own stack, so deep input cannot exhaust Python's.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from typing import NoReturn, TypeAlias

# Longer input is not a document DDS could hold (16 MiB BSON limit), so it is reported instead of
# parsed. Counted in characters: measuring bytes would mean encoding every message once more.
MAX_INPUT_CHARS = 16 * 1024 * 1024
# MongoDB itself refuses documents nested deeper than 100; 200 leaves room for update operators
# around a deep document while keeping a hostile `[[[[...` cheap to reject.
MAX_DEPTH = 200

# A parsed value: a list (array), a dict (document, keys decoded; constructors give one too, so
# `mongo_id_text` sees `{"$oid": ...}` whichever way it was written) or a str holding a scalar's
# finished strict-JSON text (serialized as soon as it is read, so number text is never touched).
Node: TypeAlias = "str | list[Node] | dict[str, Node]"

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_IDENTIFIER = re.compile(r"(?:[^\W\d]|\$)(?:\w|\$)*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRING_CHUNK = {
    '"': re.compile(r'[^"\\\x00-\x1f]*'),
    "'": re.compile(r"[^'\\\x00-\x1f]*"),
}
_SIMPLE_ESCAPES = {
    '"': '"',
    "'": "'",
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
}
_HEX4 = re.compile(r"[0-9A-Fa-f]{4}")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
# Character classes may hold an unescaped `/`; every alternative starts with a different
# character, so matching is linear whatever the input.
_REGEX_LITERAL = re.compile(r"/((?:[^/\\\[\n\r]|\\.|\[(?:[^\]\\\n\r]|\\.)*\])+)/([A-Za-z]*)")
_REGEX_ESCAPE = re.compile(r"\\(.)")
_REGEX_OPTIONS = frozenset("ilmsux")
_INTEGER_TEXT = re.compile(r"-?[0-9]+")
_DECIMAL_TEXT = re.compile(
    r"[+-]?(?:(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
    re.IGNORECASE,
)
_OBJECT_ID = re.compile(r"[0-9A-Fa-f]{24}")
_UUID = re.compile(r"[0-9A-Fa-f]{32}|[0-9A-Fa-f]{8}(?:-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12}")
_ISO_DATE = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})"
    r"(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?)?"
    r"(Z|[+-][0-9]{2}(?::?[0-9]{2})?)?"
)
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
# Shared between parses: nodes are never changed once built.
_BARE_VALUES: dict[str, Node] = {
    "true": "true",
    "false": "false",
    "null": "null",
    "undefined": "null",
    "NaN": {"$numberDouble": '"NaN"'},
    "Infinity": {"$numberDouble": '"Infinity"'},
    "MinKey": {"$minKey": "1"},
    "MaxKey": {"$maxKey": "1"},
}


class _BadInput(ValueError):
    """Raised inside the parser only; the public functions turn it into a reason."""


# A constructor argument: ("string", decoded text) or ("number", the number's text).
_Argument: TypeAlias = tuple[str, str]


def mongo_shell_to_json(text: str | None) -> tuple[str | None, str | None]:
    """Shell-style JSON -> (Extended JSON v2, None); bad -> (None, reason); NULL -> (None, None).

    See the module docstring for the accepted syntax and what each shell value becomes.
    """
    if text is None:
        return None, None
    try:
        return _serialize(_parse(text)), None
    except _BadInput as error:
        return None, str(error)


def mongo_id_text(text: str | None) -> tuple[str | None, str | None]:
    """The document's top-level `_id` as plain text, for keys and joins.

    An ObjectId (shell `ObjectId(...)` or strict `{"$oid": ...}`) gives its 24 lower-case hex
    digits, a string gives the string, a number (bare or `NumberLong`/`NumberInt`/
    `NumberDecimal`/`$numberDouble`) gives its digits as written, anything else its compact
    strict JSON. The `_id` of one collection has one type in practice, so `5` and `"5"` giving the
    same text is accepted. No `_id` or bad input -> (None, reason); NULL -> (None, None).
    """
    if text is None:
        return None, None
    try:
        document = _parse(text)
    except _BadInput as error:
        return None, str(error)
    if not isinstance(document, dict):
        return None, "not a document: the top-level value is not an object"
    if "_id" not in document:
        return None, "the document has no _id"
    return _id_text(document["_id"]), None


def _id_text(node: Node) -> str:
    """Plain text of one `_id` value (see `mongo_id_text`)."""
    if isinstance(node, str):
        return json.loads(node) if node.startswith('"') else node
    if isinstance(node, dict) and len(node) == 1:
        ((key, value),) = node.items()
        if isinstance(value, str) and value.startswith('"'):
            inner = json.loads(value)
            if key == "$oid" and _OBJECT_ID.fullmatch(inner):
                return inner.lower()
            if key in ("$numberLong", "$numberInt", "$numberDecimal", "$numberDouble"):
                return inner
    return _serialize(node)


class _Object:
    """An object being parsed: its members so far and the key waiting for its value."""

    __slots__ = ("key", "members")

    def __init__(self) -> None:
        self.members: dict[str, Node] = {}
        self.key = ""


def _parse(text: str) -> Node:
    """The whole of `text` as one value; raises `_BadInput` with the reason otherwise."""
    if len(text) > MAX_INPUT_CHARS:
        raise _BadInput(f"input longer than {MAX_INPUT_CHARS} characters ({len(text)})")
    parser = _Parser(text)
    parser.skip_whitespace()
    if parser.pos == len(text):
        raise _BadInput("empty input")
    value = parser.parse_value()
    parser.skip_whitespace()
    if parser.pos != len(text):
        parser.fail(f"unexpected text after the value: {text[parser.pos : parser.pos + 20]!r}")
    return value


class _Parser:
    """A single pass over the text; containers are kept on an explicit stack, not Python's."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str, at: int | None = None) -> NoReturn:
        raise _BadInput(f"{message} (at offset {self.pos if at is None else at})")

    def skip_whitespace(self) -> None:
        self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def peek(self) -> str:
        """The next non-whitespace character, or "" at the end of the input."""
        self.skip_whitespace()
        return self.text[self.pos : self.pos + 1]

    def expect(self, char: str, what: str) -> None:
        found = self.peek()
        if found != char:
            self.fail(f"expected {char!r} {what}, found {_describe(found)}")
        self.pos += 1

    def parse_value(self) -> Node:
        """One value of any depth: opens containers onto the stack, closes them as they end."""
        stack: list[_Object | list[Node]] = []
        while True:
            char = self.peek()
            value: Node
            if char in ("{", "["):
                if len(stack) >= MAX_DEPTH:
                    self.fail(f"nesting deeper than {MAX_DEPTH} levels")
                self.pos += 1
                closer = "}" if char == "{" else "]"
                if self.peek() == closer:
                    self.pos += 1
                    value = {} if char == "{" else []
                else:
                    if char == "{":
                        frame: _Object | list[Node] = _Object()
                        frame.key = self.read_key()
                        self.expect(":", "after a key")
                    else:
                        frame = []
                    stack.append(frame)
                    continue
            else:
                value = self.read_scalar()
            # Hand the finished value to its container; close every container that ends here.
            while stack:
                frame = stack[-1]
                if isinstance(frame, _Object):
                    frame.members[frame.key] = value
                    closer = "}"
                else:
                    frame.append(value)
                    closer = "]"
                char = self.peek()
                if char == ",":
                    self.pos += 1
                    if self.peek() == closer:
                        self.fail(f"trailing comma before {closer!r}")
                    if isinstance(frame, _Object):
                        frame.key = self.read_key()
                        self.expect(":", "after a key")
                    break
                if char != closer:
                    self.fail(f"expected ',' or {closer!r}, found {_describe(char)} (unbalanced?)")
                self.pos += 1
                stack.pop()
                value = frame.members if isinstance(frame, _Object) else frame
            else:
                return value

    def read_key(self) -> str:
        char = self.peek()
        if char in ('"', "'"):
            return self.read_string()
        match = _IDENTIFIER.match(self.text, self.pos)
        if match is None:
            self.fail(f"expected a key (a string or an identifier), found {_describe(char)}")
        self.pos = match.end()
        return match.group()

    def read_scalar(self) -> Node:
        """A string, number, regex, bare word or constructor call (constructors give documents)."""
        char = self.peek()
        if char in ('"', "'"):
            return _json_string(self.read_string())
        if char == "-" and self.text.startswith("-Infinity", self.pos):
            self.pos += len("-Infinity")
            return {"$numberDouble": '"-Infinity"'}
        if char == "-" or char.isdigit():
            return self.read_number()
        if char == "/":
            return self.read_regex()
        match = _IDENTIFIER.match(self.text, self.pos)
        if match is None:
            self.fail(f"expected a value, found {_describe(char)}")
        start = self.pos
        self.pos = match.end()
        word = match.group()
        if word == "new":
            self.skip_whitespace()
            match = _IDENTIFIER.match(self.text, self.pos)
            if match is None:
                self.fail("expected a constructor after 'new'")
            self.pos = match.end()
            return self.call(match.group(), start)
        if word in _BARE_VALUES and self.peek() != "(":
            return _BARE_VALUES[word]
        return self.call(word, start)

    def call(self, name: str, start: int) -> Node:
        """A constructor, `name` already read: its arguments, checked and converted."""
        if name not in _CONSTRUCTORS:
            self.fail(f"unknown constructor or identifier {name!r}", start)
        if self.peek() != "(":
            if name in _BARE_VALUES:  # `new MinKey`
                return _BARE_VALUES[name]
            self.fail(f"{name} must be called with arguments in ( )", start)
        self.pos += 1
        arguments = self.read_arguments(name)
        try:
            return _CONSTRUCTORS[name](arguments)
        except _BadInput as error:
            self.fail(str(error), start)

    def read_arguments(self, name: str) -> list[_Argument]:
        arguments: list[_Argument] = []
        if self.peek() == ")":
            self.pos += 1
            return arguments
        while True:
            char = self.peek()
            if char in ('"', "'"):
                arguments.append(("string", self.read_string()))
            elif char == "-" or char.isdigit():
                arguments.append(("number", self.read_number()))
            else:
                self.fail(
                    f"arguments of {name} must be strings or numbers, found {_describe(char)}"
                )
            char = self.peek()
            if char != "," and char != ")":
                self.fail(
                    f"expected ',' or ')' in the arguments of {name}, found {_describe(char)}"
                )
            self.pos += 1
            if char == ")":
                return arguments

    def read_number(self) -> str:
        match = _NUMBER.match(self.text, self.pos)
        end = match.end() if match else self.pos
        following = self.text[end : end + 1]
        if match is None or following.isalnum() or following in (".", "_", "$"):
            self.fail(f"malformed number {self.text[self.pos : end + 10]!r}")
        self.pos = end
        return match.group()

    def read_string(self) -> str:
        """A quoted string (either quote), decoded; the opening quote is at `pos`."""
        text = self.text
        start = self.pos
        quote = text[start]
        chunk = _STRING_CHUNK[quote]
        parts: list[str] = []
        pos = start + 1
        while True:
            match = chunk.match(text, pos)
            parts.append(match.group())  # type: ignore[union-attr]
            pos = match.end()  # type: ignore[union-attr]
            char = text[pos : pos + 1]
            if char == quote:
                break
            if char == "":
                self.fail("unterminated string", start)
            if char != "\\":
                reason = "line break" if char in "\n\r" else "unescaped control character"
                self.fail(f"{reason} {char!r} inside a string (unterminated string?)", pos)
            escape = text[pos + 1 : pos + 2]
            if escape in _SIMPLE_ESCAPES:
                parts.append(_SIMPLE_ESCAPES[escape])
                pos += 2
            elif escape == "u" and _HEX4.fullmatch(text, pos + 2, pos + 6):
                parts.append(chr(int(text[pos + 2 : pos + 6], 16)))
                pos += 6
            elif escape == "x" and _HEX2.fullmatch(text, pos + 2, pos + 4):
                parts.append(chr(int(text[pos + 2 : pos + 4], 16)))
                pos += 4
            elif escape == "0" and not text[pos + 2 : pos + 3].isdigit():
                parts.append("\0")
                pos += 2
            elif escape == "\n":
                pos += 2
            elif escape == "":
                self.fail("unterminated string", start)
            else:
                self.fail(f"invalid escape {text[pos : pos + 2]!r} in a string", pos)
        self.pos = pos + 1
        value = "".join(parts)
        if _SURROGATE.search(value):
            try:
                # Joins escaped surrogate pairs (\ud83d\ude00) into one character.
                value = value.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
            except UnicodeDecodeError:
                self.fail("lone UTF-16 surrogate in a string (not valid Unicode)", start)
        return value

    def read_regex(self) -> Node:
        match = _REGEX_LITERAL.match(self.text, self.pos)
        if match is None:
            self.fail("unterminated or empty regular expression (comments are not accepted)")
        pattern = _REGEX_ESCAPE.sub(
            lambda escape: "/" if escape.group(1) == "/" else escape.group(), match.group(1)
        )
        flags = match.group(2)
        unknown = sorted(set(flags) - _REGEX_OPTIONS)
        if unknown:
            self.fail(f"regular expression flag {unknown[0]!r} has no MongoDB equivalent")
        self.pos = match.end()
        options = "".join(sorted(set(flags)))
        return {
            "$regularExpression": {
                "pattern": _json_string(pattern),
                "options": _json_string(options),
            }
        }


def _describe(char: str) -> str:
    """A found character for a reason: quoted, or the end of the input when there is none."""
    return repr(char) if char else "the end of the input"


def _json_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _only(name: str, arguments: list[_Argument], kinds: tuple[str, ...]) -> str:
    """The single argument's text, when there is exactly one and of an accepted kind."""
    if len(arguments) != 1 or arguments[0][0] not in kinds:
        raise _BadInput(f"{name} takes one {' or '.join(kinds)} argument")
    return arguments[0][1]


def _integer(name: str, text: str, low: int, high: int) -> int:
    if not _INTEGER_TEXT.fullmatch(text):
        raise _BadInput(f"{name} needs an integer, got {text[:40]!r}")
    number = int(text)
    if not low <= number <= high:
        raise _BadInput(f"{name} value {text[:40]} is outside {low}..{high}")
    return number


def _object_id(arguments: list[_Argument]) -> Node:
    hex_text = _only("ObjectId", arguments, ("string",))
    if not _OBJECT_ID.fullmatch(hex_text):
        raise _BadInput(f"ObjectId needs 24 hex digits, got {hex_text[:40]!r}")
    return {"$oid": _json_string(hex_text.lower())}


def _number_long(arguments: list[_Argument]) -> Node:
    text = _only("NumberLong", arguments, ("number", "string"))
    number = _integer("NumberLong", text, -(2**63), 2**63 - 1)
    return {"$numberLong": f'"{number}"'}


def _number_int(arguments: list[_Argument]) -> Node:
    text = _only("NumberInt", arguments, ("number", "string"))
    number = _integer("NumberInt", text, -(2**31), 2**31 - 1)
    return {"$numberInt": f'"{number}"'}


def _number_decimal(arguments: list[_Argument]) -> Node:
    text = _only("NumberDecimal", arguments, ("string", "number"))
    if not _DECIMAL_TEXT.fullmatch(text):
        raise _BadInput(f"NumberDecimal needs a decimal number, got {text[:40]!r}")
    return {"$numberDecimal": f'"{text}"'}


def _timestamp(arguments: list[_Argument]) -> Node:
    if len(arguments) != 2 or any(kind != "number" for kind, _ in arguments):
        raise _BadInput("Timestamp takes two integers (seconds, increment)")
    seconds, increment = (_integer("Timestamp", text, 0, 2**32 - 1) for _, text in arguments)
    return {"$timestamp": {"t": str(seconds), "i": str(increment)}}


def _binary(data: bytes, subtype: int) -> Node:
    encoded = base64.b64encode(data).decode("ascii")
    return {"$binary": {"base64": f'"{encoded}"', "subType": f'"{subtype:02x}"'}}


def _bin_data(arguments: list[_Argument]) -> Node:
    if [kind for kind, _ in arguments] != ["number", "string"]:
        raise _BadInput('BinData takes a subtype number and a base64 string: BinData(0, "...")')
    subtype = _integer("BinData subtype", arguments[0][1], 0, 255)
    try:
        data = base64.b64decode(arguments[1][1], validate=True)
    except (binascii.Error, ValueError):
        raise _BadInput(f"BinData data is not valid base64: {arguments[1][1][:40]!r}") from None
    return _binary(data, subtype)


def _uuid(arguments: list[_Argument]) -> Node:
    text = _only("UUID", arguments, ("string",))
    if not _UUID.fullmatch(text):
        raise _BadInput(f"UUID needs 32 hex digits (dashes optional), got {text[:40]!r}")
    return _binary(bytes.fromhex(text.replace("-", "")), 4)


def _date(arguments: list[_Argument]) -> Node:
    if not arguments:
        raise _BadInput("a date without an argument means 'now', which a change record cannot use")
    if len(arguments) != 1:
        raise _BadInput("a date takes one argument: an ISO-8601 string or epoch milliseconds")
    kind, text = arguments[0]
    if kind == "number":
        millis = _integer("epoch milliseconds", text, -(2**63), 2**63 - 1)
    else:
        millis = _iso_to_millis(text)
    try:
        moment = _EPOCH + dt.timedelta(milliseconds=millis)
    except OverflowError:  # outside years 1..9999: no ISO form
        return {"$date": {"$numberLong": f'"{millis}"'}}
    return {"$date": f'"{moment.replace(tzinfo=None).isoformat(timespec="milliseconds")}Z"'}


def _iso_to_millis(text: str) -> int:
    """Epoch milliseconds of an ISO-8601 date string (see the module docstring for the forms)."""
    match = _ISO_DATE.fullmatch(text)
    if match is None:
        raise _BadInput(f"not an ISO-8601 date: {text[:40]!r}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    offset = dt.timedelta(0)
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        hours, minutes = int(digits[:2]), int(digits[2:] or 0)
        if hours >= 24 or minutes >= 60:
            raise _BadInput(f"bad UTC offset in date {text[:40]!r}")
        offset = dt.timedelta(hours=hours, minutes=minutes)
        if zone[0] == "-":
            offset = -offset
    try:
        local = dt.datetime(
            int(year),
            int(month),
            int(day),
            int(hour or 0),
            int(minute or 0),
            int(second or 0),
            tzinfo=dt.timezone.utc,
        )
    except ValueError as error:
        raise _BadInput(f"impossible date {text[:40]!r}: {error}") from None
    delta = local - _EPOCH - offset  # timedelta arithmetic: cannot leave datetime's range
    whole_millis = (delta.days * 86_400 + delta.seconds) * 1000
    return whole_millis + int(((fraction or "") + "000")[:3])


def _min_key(arguments: list[_Argument]) -> Node:
    if arguments:
        raise _BadInput("MinKey takes no arguments")
    return _BARE_VALUES["MinKey"]


def _max_key(arguments: list[_Argument]) -> Node:
    if arguments:
        raise _BadInput("MaxKey takes no arguments")
    return _BARE_VALUES["MaxKey"]


_CONSTRUCTORS: dict[str, Callable[[list[_Argument]], Node]] = {
    "ObjectId": _object_id,
    "ISODate": _date,
    "Date": _date,
    "NumberLong": _number_long,
    "NumberInt": _number_int,
    "NumberDecimal": _number_decimal,
    "Timestamp": _timestamp,
    "BinData": _bin_data,
    "UUID": _uuid,
    "MinKey": _min_key,
    "MaxKey": _max_key,
}


def _serialize(root: Node) -> str:
    """Compact strict JSON of a parsed value, walking it with an explicit stack."""
    out: list[str] = []
    # Per open container: its remaining (position, (key or None, value)) members, its closer.
    stack: list[tuple[Iterator[tuple[int, tuple[str | None, Node]]], str]] = []
    node = root
    while True:
        if isinstance(node, str):
            out.append(node)
        elif isinstance(node, dict):
            out.append("{")
            stack.append((enumerate(node.items()), "}"))
        else:
            out.append("[")
            stack.append((enumerate((None, item) for item in node), "]"))
        while stack:
            members, closer = stack[-1]
            member = next(members, None)
            if member is None:
                out.append(closer)
                stack.pop()
                continue
            position, (key, node) = member
            if position:
                out.append(",")
            if key is not None:
                out.append(_json_string(key))
                out.append(":")
            break
        else:
            return "".join(out)
