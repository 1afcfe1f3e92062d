"""One Alibaba DTS binary Avro `Record` (a Kafka value, no header) turned into one JSON document.

Spark reads Avro only through the spark-avro jar, which cannot be downloaded here, and even then
the DTS image union (thirteen record types, several of the same shape) needs dispatch by type
name. So this is a Python UDF: `dts_avro_json` decodes with fastavro and the schema files
shipped in `schemas/aliyun_dts/` (see the SOURCES.md there), and the `dts_avro` staging model
reads the JSON with `from_json`. It returns `(json, None)`, `(None, reason)` for bad input and
`(None, None)` for NULL, and never raises: inside a Spark task an exception would fail the whole
dbt run instead of sending one message to the rejected-messages model.

The JSON (compact, UTF-8 text, every key always present, in this order):

- `version`, `id`, `source_timestamp` (epoch seconds), `source_position`,
  `safe_source_position`, `source_txid`: the Record fields as sent.
- `source`: `{"sourceType": "MySQL", "version": "5.7"}`.
- `operation`: the enum name, one of INSERT UPDATE DELETE DDL BEGIN COMMIT ROLLBACK ABORT
  HEARTBEAT CHECKPOINT COMMAND FILL FINISH CONTROL RDB NOOP INIT.
- `object_name` as sent, and `database_name`, `schema_name`, `table_name` split from it: DTS
  writes `db.table` or `db.schema.table` and escapes a dot inside a name as the literal text
  `\\u002E`. One part is a database alone, two are database and table (`schema_name` null),
  three are database, schema and table; more parts are an error. Empty parts are null.
- `process_timestamps` (list of longs or null), `tags` (object of strings, as sent).
- `fields`: `[{"name": ..., "data_type_number": ...}]`, or null. The schema also allows a
  string here, which Alibaba's own Java SDK reads and discards; it gives null too.
- `before_images`, `after_images`: objects of column name to canonical text (below), in field
  order, or null. `fields[i]` names the i-th image value, so the counts must match and names
  must be unique (else an error). When `fields` is null (Alibaba's SDK does this for MongoDB
  row changes) the columns are named by position: "0", "1", ...
- `ddl_text`: the statement of DDL (and MongoDB COMMAND) records. DTS sends it as the string
  branch of the image union, in `afterImages`; a string `beforeImages` is taken when
  `afterImages` is not a string, and two different strings are an error. A string image never
  appears in `before_images`/`after_images` (they are null). Null for row changes.
- `born_timestamp`: epoch milliseconds. Older producers do not write this last field; such
  messages decode too, with `born_timestamp` null (as Alibaba's SDK reads them: a long after the
  images only when bytes remain).

Canonical text of image values:

- null and `EmptyObject` (NULL or NONE): JSON null.
- `Integer`, `Decimal`: their decimal `value` text as sent (precision and scale dropped).
- `Float`: Python's `repr` of the double (`1.5`, `-2.5e-07`, `-0.0`), except that integral
  values never use an exponent (`1e16` gives `10000000000000000.0`); NaN and infinities are
  `NaN`, `Infinity`, `-Infinity` (Java's spelling, which Spark casts to double).
- `Character`: the bytes decoded with the charset. MySQL names (utf8, utf8mb4, gbk, latin1, ...)
  and a few Oracle ones are mapped to Python codecs; other names (Java ones such as UTF-8,
  ISO-8859-1, Shift_JIS) go to Python's codec lookup; an empty name means UTF-8. MySQL `latin1`
  is cp1252 with its five unassigned bytes kept as U+0081 and the like, as MySQL does. Charset
  `binary`, an unknown charset, or bytes that do not decode give standard base64 of the bytes
  instead: such a value cannot be told from text by looking at it (`data_type_number` can).
- `DateTime`: local wall-clock text from the parts present: `yyyy-MM-dd HH:mm:ss[.f]` when all
  are, `yyyy-MM-dd` (DATE), `HH:mm:ss[.f]` (TIME; hours may have three digits), `yyyy` (YEAR);
  year is zero-padded to 4 digits, the others to 2; if any part is negative (MySQL TIME
  `-01:02:03`) the text starts with `-` and the parts are absolute. The fraction is in `millis`,
  which (as Alibaba's SDK reads it) holds microseconds for MySQL and PostgreSQL sources and
  nanoseconds for the others and for physical-log readers (whose `sourcePosition` contains
  `<->`). It is written as 6 digits, or 9 when nanoseconds are not whole
  microseconds, and left out when null or 0. No parts at all gives an empty string.
- `TimestampWithTimeZone`: the DateTime text, a space and the zone as sent (`+08:00`,
  `Asia/Shanghai`); just the DateTime text when the zone is empty.
- `Timestamp`: epoch seconds plus `millis` (which holds microseconds) as UTC
  `yyyy-MM-dd HH:mm:ss.ffffff`, always 6 fraction digits.
- `BinaryObject`, `BinaryGeometry`: standard base64 of the bytes (type name dropped).
- `TextObject`, `TextGeometry`: their text (type name dropped).

Bad input (a reason, never an exception): empty or 1-2 byte messages (DTS filler records),
messages over `MAX_MESSAGE_BYTES`, truncation, absurd lengths or counts, corrupt union or enum
indexes, invalid UTF-8 in strings, bytes left over after the record, and anything not in the
encoding Java's Avro BinaryEncoder writes (see `_check_canonical`).

Memory: fastavro reads a declared length with `read(n)` on an in-memory stream, which returns
at most the bytes that are there, and builds arrays and maps item by item, each item consuming
at least one input byte; so a small corrupt message cannot allocate much (a length of 2**62
fails at once). Memory grows with the input instead: a message made of tiny items (one-byte
null image values) peaks at over a hundred bytes of Python objects and JSON per input byte
(figures: udfs/benchmarks/README.md), which is what `MAX_MESSAGE_BYTES` bounds.
"""

from __future__ import annotations

import base64
import codecs
import io
import json
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

import fastavro
from fastavro.schema import load_schema, to_parsing_canonical_form

SCHEMA_DIR = Path(__file__).parent / "schemas" / "aliyun_dts"
EMPTY_OBJECT = "com.alibaba.dts.formats.avro.EmptyObject"
RECORD_SCHEMA_FILE = SCHEMA_DIR / "com.alibaba.dts.formats.avro.Record.avsc"

# Larger messages are reported, not decoded: decoding costs up to a hundred-odd bytes of memory
# per input byte (the module docstring). DTS messages are far smaller (Kafka's default limit is
# 1 MiB).
MAX_MESSAGE_BYTES = 16 * 1024 * 1024
# DTS pads topics with records of at most this many bytes that carry no Record.
FILLER_MAX_BYTES = 2

# MySQL (and a few Oracle NLS) charset names, lower-cased without `-` and `_`, to Python codecs
# (latin1 has its own table below). MySQL's utf16/utf32/ucs2 are big-endian without a BOM.
CHARSET_CODECS = {
    "utf8": "utf-8",
    "utf8mb3": "utf-8",
    "utf8mb4": "utf-8",
    "al32utf8": "utf-8",
    "ascii": "ascii",
    "usascii": "ascii",
    "latin2": "iso8859_2",
    "latin5": "iso8859_9",
    "latin7": "iso8859_13",
    "greek": "iso8859_7",
    "hebrew": "iso8859_8",
    "cp1250": "cp1250",
    "cp1251": "cp1251",
    "cp1256": "cp1256",
    "cp1257": "cp1257",
    "cp850": "cp850",
    "cp852": "cp852",
    "cp866": "cp866",
    "cp932": "cp932",
    "sjis": "shift_jis",
    "ujis": "euc_jp",
    "eucjpms": "euc_jp",
    "euckr": "euc_kr",
    "gbk": "gbk",
    "zhs16gbk": "gbk",
    "gb2312": "gbk",  # GBK is a superset: MySQL stores some GBK-only bytes in gb2312 columns.
    "gb18030": "gb18030",
    "big5": "big5",
    "koi8r": "koi8_r",
    "koi8u": "koi8_u",
    "macroman": "mac_roman",
    "macce": "mac_latin2",
    "tis620": "tis_620",
    "ucs2": "utf-16-be",
    "utf16": "utf-16-be",
    "al16utf16": "utf-16-be",
    "utf16le": "utf-16-le",
    "utf32": "utf-32-be",
}
# MySQL's latin1 is cp1252, except that the five bytes cp1252 leaves unassigned map to the
# control characters of the same number (MySQL manual, "West European Character Sets").
MYSQL_LATIN1_TABLE = "".join(
    bytes([byte]).decode("cp1252", errors="ignore") or chr(byte) for byte in range(256)
)

# For these sources DateTime.millis holds microseconds, for all others nanoseconds (as
# Alibaba's Java SDK reads it); a PostgreSQL physical-log reader, whose positions contain
# "<->", writes nanoseconds too.
MICROSECOND_SOURCES = frozenset({"MySQL", "PostgreSQL"})
PHYSICAL_LOG_MARKER = "<->"
ESCAPED_DOT = "\\u002E"
EPOCH = datetime(1970, 1, 1)


class DtsAvroError(ValueError):
    """Why a message cannot be turned into the JSON; its text is the reason returned."""


@dataclass(frozen=True)
class _Schemas:
    """The parsed schemas one message is read with."""

    head: Any  # Record without its last field, bornTimestamp, which old producers omit
    born: Any  # the bornTimestamp long, read only when bytes remain after the head


@cache
def dts_record_schema() -> Any:
    """The parsed DTS `Record` schema, loaded once per process from this package's files."""
    return load_schema(str(RECORD_SCHEMA_FILE))


@cache
def _schemas() -> _Schemas:
    """Split `Record` into head and bornTimestamp, so messages with and without it both read."""
    canonical = json.loads(to_parsing_canonical_form(dts_record_schema()))
    *head_fields, born_field = canonical["fields"]
    if born_field != {"name": "bornTimestamp", "type": "long"}:
        raise DtsAvroError(f"unexpected last field of the Record schema: {born_field}")
    return _Schemas(
        head=fastavro.parse_schema({**canonical, "fields": head_fields}),
        born=fastavro.parse_schema(born_field["type"]),
    )


def dts_avro_json(data: bytes | None) -> tuple[str | None, str | None]:
    """One DTS Avro message -> (JSON text, None); bad input -> (None, reason); NULL -> (None, None).

    Never raises (every failure becomes a reason), so that one bad message cannot fail a Spark
    task. The JSON convention is in the module docstring.
    """
    if data is None:
        return None, None
    try:
        return json.dumps(_decode(data), ensure_ascii=False, separators=(",", ":")), None
    except DtsAvroError as error:
        return None, str(error)
    except Exception as error:
        return None, _reason(error)


def _decode(data: object) -> dict[str, Any]:
    """Read, verify and convert one message; raises on bad input (turned into a reason above)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise DtsAvroError(f"expected bytes, got {type(data).__name__}")
    raw = bytes(data)
    if not raw:
        raise DtsAvroError("empty message (a DTS filler record, not a Record)")
    if len(raw) <= FILLER_MAX_BYTES:
        raise DtsAvroError(f"{len(raw)}-byte message (a DTS filler record, not a Record)")
    if len(raw) > MAX_MESSAGE_BYTES:
        raise DtsAvroError(f"message of {len(raw)} bytes is over the limit of {MAX_MESSAGE_BYTES}")
    schemas = _schemas()
    stream = io.BytesIO(raw)
    head = fastavro.schemaless_reader(stream, schemas.head, return_named_type=True)
    born = None
    if stream.tell() < len(raw):
        born = fastavro.schemaless_reader(stream, schemas.born)
    if stream.tell() < len(raw):
        raise DtsAvroError(f"{len(raw) - stream.tell()} trailing byte(s) after the record")
    _check_canonical(raw, head, born, schemas)
    return _record_json(head, born)


def _check_canonical(raw: bytes, head: dict[str, Any], born: int | None, schemas: _Schemas) -> None:
    """Reject input whose re-encoding differs: fastavro silently accepts some corruption.

    fastavro indexes union branches and enum symbols with the index as read, so a corrupt
    negative index picks a branch from the end (-1 reads as EmptyObject) instead of failing.
    Writing the decoded record again gives the bytes Java's Avro BinaryEncoder (what DTS uses)
    would write; any difference is such an index, an over-long varint, a blocked array or map,
    or a repeated map key. None of these come from DTS.
    """
    out = io.BytesIO()
    fastavro.schemaless_writer(out, schemas.head, _writable(head))
    if born is not None:
        fastavro.schemaless_writer(out, schemas.born, born)
    again = out.getvalue()
    if again != raw:
        offset = next(
            (index for index, (a, b) in enumerate(zip(raw, again, strict=False)) if a != b),
            min(len(raw), len(again)),
        )
        raise DtsAvroError(
            f"not the Avro encoding DTS writes (from byte {offset}): a corrupt union or enum "
            "index, an over-long varint, a blocked array or map, or a repeated map key"
        )


def _writable(head: dict[str, Any]) -> dict[str, Any]:
    """The record as fastavro's writer takes it back: an `EmptyObject` read as a named tuple
    is written as its bare symbol (the writer rejects the tuple form in `beforeImages`, where
    the schema defines the image types inline; the bytes are the same)."""

    def bare(images: Any) -> Any:
        if not isinstance(images, list):
            return images
        return [
            value[1] if isinstance(value, tuple) and value[0] == EMPTY_OBJECT else value
            for value in images
        ]

    return {
        **head,
        "beforeImages": bare(head["beforeImages"]),
        "afterImages": bare(head["afterImages"]),
    }


def _reason(error: Exception) -> str:
    """A readable reason for an exception raised while decoding."""
    detail = f": {error}" if str(error) else ""
    if isinstance(error, EOFError):
        return f"message ends early (truncated, or a corrupt length or count){detail}"
    if isinstance(error, IndexError):
        return f"corrupt union or enum index, or an over-long varint{detail}"
    if isinstance(error, UnicodeDecodeError):
        return f"a string is not valid UTF-8{detail}"
    if isinstance(error, MemoryError):
        return "out of memory while decoding"
    return f"cannot decode: {type(error).__name__}{detail}"


def _record_json(record: dict[str, Any], born: int | None) -> dict[str, Any]:
    """The JSON object of one decoded Record, keys in the documented order."""
    source = record["source"]
    database_name, schema_name, table_name = _split_object_name(record["objectName"])
    fields = record["fields"] if isinstance(record["fields"], list) else None
    names = _column_names(fields)
    nanos = (
        source["sourceType"] not in MICROSECOND_SOURCES
        or PHYSICAL_LOG_MARKER in record["sourcePosition"]
    )
    before, after = record["beforeImages"], record["afterImages"]
    return {
        "version": record["version"],
        "id": record["id"],
        "source_timestamp": record["sourceTimestamp"],
        "source_position": record["sourcePosition"],
        "safe_source_position": record["safeSourcePosition"],
        "source_txid": record["sourceTxid"],
        "source": {"sourceType": source["sourceType"], "version": source["version"]},
        "operation": record["operation"],
        "object_name": record["objectName"],
        "database_name": database_name,
        "schema_name": schema_name,
        "table_name": table_name,
        "process_timestamps": record["processTimestamps"],
        "tags": record["tags"],
        "fields": (
            None
            if fields is None
            else [{"name": f["name"], "data_type_number": f["dataTypeNumber"]} for f in fields]
        ),
        "before_images": _image(before, names, "beforeImages", nanos),
        "after_images": _image(after, names, "afterImages", nanos),
        "ddl_text": _statement_text(before, after),
        "born_timestamp": born,
    }


def _split_object_name(name: str | None) -> tuple[str | None, str | None, str | None]:
    """`db`, `db.table` or `db.schema.table` -> (database, schema, table); see the docstring."""
    if not name:
        return None, None, None
    parts = [part.replace(ESCAPED_DOT, ".") or None for part in name.split(".")]
    if len(parts) == 1:
        return parts[0], None, None
    if len(parts) == 2:
        return parts[0], None, parts[1]
    if len(parts) == 3:
        return parts[0], parts[1], parts[2]
    raise DtsAvroError(f"objectName has {len(parts)} dot-separated parts, at most 3 expected")


def _column_names(fields: list[dict[str, Any]] | None) -> list[str] | None:
    """Field names in order, which must be unique to key an image object."""
    if fields is None:
        return None
    names = [field["name"] for field in fields]
    if len(set(names)) != len(names):
        duplicates = sorted({name for name in names if names.count(name) > 1})
        raise DtsAvroError(f"fields repeat column names: {duplicates}")
    return names


def _image(
    image: list[Any] | str | None, names: list[str] | None, label: str, nanos: bool
) -> dict[str, str | None] | None:
    """A row image as column name -> canonical text; null for no image or a statement string."""
    if not isinstance(image, list):
        return None
    if names is None:
        names = [str(position) for position in range(len(image))]
    elif len(names) != len(image):
        raise DtsAvroError(f"{label} has {len(image)} values but fields has {len(names)} columns")
    return {name: _value_text(value, nanos) for name, value in zip(names, image, strict=True)}


def _statement_text(before: Any, after: Any) -> str | None:
    """The DDL (or COMMAND) statement, which DTS sends as a string image."""
    texts = [image for image in (after, before) if isinstance(image, str)]
    if len(set(texts)) > 1:
        raise DtsAvroError("beforeImages and afterImages are two different statement strings")
    return texts[0] if texts else None


def _value_text(value: tuple[str, Any] | None, nanos: bool) -> str | None:
    """The canonical text of one image value (a fastavro `(type name, value)` pair, or None)."""
    if value is None:
        return None
    type_name, content = value
    match type_name.rpartition(".")[2]:
        case "Integer" | "Decimal" | "TextObject" | "TextGeometry":
            return content["value"]
        case "Float":
            return _double_text(content["value"])
        case "Character":
            return _character_text(content["value"], content["charset"])
        case "Timestamp":
            return _epoch_text(content["timestamp"], content["millis"])
        case "DateTime":
            return _datetime_text(content, nanos)
        case "TimestampWithTimeZone":
            text = _datetime_text(content["value"], nanos)
            return f"{text} {content['timezone']}" if content["timezone"] else text
        case "BinaryObject" | "BinaryGeometry":
            return _base64(content["value"])
        case "EmptyObject":
            return None
    raise DtsAvroError(f"image value of unknown type {type_name}")


def _base64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _double_text(value: float) -> str:
    """`repr`, but integral values without an exponent and Java's names for NaN and infinity."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    text = repr(value)
    if value.is_integer() and "e" in text:
        return f"{int(value)}.0"
    return text


def _character_text(data: bytes, charset: str) -> str:
    """Bytes decoded with a MySQL or Java charset name; base64 when that is not possible."""
    name = charset.strip()
    key = name.lower().replace("-", "").replace("_", "")
    if key == "binary":
        return _base64(data)
    try:
        if key == "latin1":
            return codecs.charmap_decode(data, "strict", MYSQL_LATIN1_TABLE)[0]
        if not key or key in CHARSET_CODECS:
            return data.decode(CHARSET_CODECS.get(key, "utf-8"))
        # Any other name is Python's to resolve (Java names such as Shift_JIS). A few codecs it
        # knows (unicode_escape, utf-7) can give lone surrogates, which UTF-8 output cannot hold.
        text = data.decode(name)
        text.encode("utf-8")
        return text
    except (LookupError, UnicodeError, ValueError):
        return _base64(data)


def _epoch_text(seconds: int, micros: int) -> str:
    """Epoch seconds plus microseconds as UTC `yyyy-MM-dd HH:mm:ss.ffffff`."""
    if not 0 <= micros < 1_000_000:
        raise DtsAvroError(f"Timestamp microseconds out of range: {micros}")
    try:
        moment = EPOCH + timedelta(seconds=seconds, microseconds=micros)
    except OverflowError as error:
        raise DtsAvroError(f"Timestamp {seconds} is outside the years 1-9999") from error
    return moment.isoformat(sep=" ", timespec="microseconds")


def _datetime_text(parts: dict[str, int | None], nanos: bool) -> str:
    """Wall-clock text from the DateTime parts present (rules in the module docstring)."""
    date_parts = [(parts[name], width) for name, width in (("year", 4), ("month", 2), ("day", 2))]
    time_parts = [(parts[name], 2) for name in ("hour", "minute", "second")]
    fraction = parts["millis"]
    present = [value for value, _ in date_parts + time_parts if value is not None]
    negative = any(value < 0 for value in present) or (fraction is not None and fraction < 0)
    date = "-".join(f"{abs(value):0{width}d}" for value, width in date_parts if value is not None)
    time = ":".join(f"{abs(value):0{width}d}" for value, width in time_parts if value is not None)
    if fraction:
        time += "." + _fraction_digits(abs(fraction), nanos)
    text = " ".join(part for part in (date, time) if part)
    return f"-{text}" if negative else text


def _fraction_digits(value: int, nanos: bool) -> str:
    """Fraction of a second: 6 digits, or 9 when nanoseconds are not whole microseconds."""
    limit = 1_000_000_000 if nanos else 1_000_000
    if value >= limit:
        unit = "nanoseconds" if nanos else "microseconds"
        raise DtsAvroError(f"DateTime fraction out of range: {value} {unit}")
    if not nanos:
        return f"{value:06d}"
    return f"{value // 1000:06d}" if value % 1000 == 0 else f"{value:09d}"
