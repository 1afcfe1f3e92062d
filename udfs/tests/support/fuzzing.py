"""Hostile messages for every format, made from the bundled samples: the fuzz harness's input.

Each mutant starts from one bundled sample message of its format, moved into the `fuzz_`
namespace first (every database, schema, table and collection name the message carries is
prefixed), so that a mutant that is still a valid message changes only tables of its own and
the samples' tables keep exactly the state the samples give alone. Then one mutation of the
kinds users meet: a truncated line, flipped bytes, a field deleted or given another JSON type
(null, an empty array or object, a number past 2^64, a string), a huge string, a 3,000-deep
nesting, duplicate keys, a non-JSON line, invalid UTF-8, a table name of 100,000 characters or
of odd characters, hostile column names (quotes, backticks, case twins, 10,000 characters),
and for the binary `dts_avro` records corrupted under their base64. Seeded: the same seed
writes the same bytes, so a failure reproduces. Beside them, `limit_messages`: a message at
and one past each of the project's limits, with the outcome each must have.
"""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from support.project import SAMPLES

PREFIX = "fuzz_"  # the mutants' namespace
CONTROL_PREFIX = "fuzzctl_"  # the unmutated copies loaded beside them
# Keys whose string value names a database, schema, table or collection, in any format.
NAME_KEYS = frozenset(
    {"db", "database", "dbName", "schema", "schemaName", "namespace", "table", "tableName"}
    | {"coll", "_source_table_", "objectName"}
    | {"schema-name", "table-name"}  # AWS DMS `metadata`
)
HOSTILE_NAMES = (
    "a" * 100_000,
    'we"ird`ta\\ble/../x\n',
    "Id",
    "ID",
    "`; drop table x; --",
    "é" * 300,
    "c" * 10_000,
)
ODD_VALUES: tuple[Any, ...] = (None, [], {}, "", "text", 2**70, -(2**65), 1.5e308, True, [{}])


def sample_messages(fmt: str) -> list[bytes]:
    """The bundled sample message values of a format (kcat envelopes unwrapped)."""
    messages = []
    for path in sorted((SAMPLES / fmt).iterdir()):
        for line in path.read_bytes().splitlines():
            if not line.strip():
                continue
            if path.suffix == ".b64":
                messages.append(base64.b64decode(line))
            elif path.name.endswith(".kcat.jsonl"):
                messages.append(json.loads(line)["payload"].encode())
            else:
                messages.append(line.strip())
    return messages


def renamed(node: Any, prefix: str = PREFIX) -> Any:
    """The JSON value with every name under a NAME_KEYS key moved into a namespace."""
    if isinstance(node, dict):
        return {
            key: prefix + value
            if key in NAME_KEYS and isinstance(value, str)
            else renamed(value, prefix)
            for key, value in node.items()
        }
    if isinstance(node, list):
        return [renamed(value, prefix) for value in node]
    return node


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path (keys and indexes) below the root of a JSON value."""
    if isinstance(node, dict):
        children = list(node.items())
    elif isinstance(node, list):
        children = list(enumerate(node))
    else:
        return []
    found = []
    for key, child in children:
        found.append((*prefix, key))
        found += paths(child, (*prefix, key))
    return found


DELETE = object()


def replaced(node: Any, path: tuple[Any, ...], value: Any) -> Any:
    """A copy of the JSON value with the value at `path` replaced (deleted if `value` is
    DELETE)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    copy = dict(node) if isinstance(node, dict) else list(node)
    if not rest and value is DELETE:
        del copy[head]
    else:
        copy[head] = replaced(node[head], rest, value)
    return copy


class SentNumber(str):
    """A JSON number with a fraction or exponent, as its text: `1.50` read as a float would
    be written back as `1.5`, and a control copy must stage as its sample does."""


def numbers_as_sent(text: str | bytes) -> Any:
    """The JSON value, each number with a fraction or exponent kept as its text."""
    return json.loads(text, parse_float=SentNumber)


def dumps(node: Any) -> bytes:
    """Compact JSON; a SentNumber is written as the number text it holds."""
    numbers: list[str] = []

    def placeholders(value: Any) -> Any:
        if isinstance(value, SentNumber):
            numbers.append(str(value))
            return f"\x00{len(numbers) - 1}\x00"
        if isinstance(value, dict):
            return {key: placeholders(item) for key, item in value.items()}
        if isinstance(value, list):
            return [placeholders(item) for item in value]
        return value

    text = json.dumps(placeholders(node), ensure_ascii=False, separators=(",", ":"))
    for index, number in enumerate(numbers):
        text = text.replace(f'"\\u0000{index}\\u0000"', number, 1)
    return text.encode()


def some_path(rng: random.Random, node: Any, kind: type | None = None) -> tuple[Any, ...] | None:
    """A random path of the value, optionally to a value of one Python type."""
    candidates = [
        path for path in paths(node) if kind is None or isinstance(value_at(node, path), kind)
    ]
    return rng.choice(candidates) if candidates else None


def value_at(node: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        node = node[key]
    return node


def mutate_json(rng: random.Random, text: bytes) -> bytes:
    """One mutation of a JSON message (a fuzz-namespace sample) of the kinds listed above."""
    message = json.loads(text)
    kind = rng.randrange(14)
    if kind == 0:  # a truncated line
        return text[: rng.randrange(1, max(2, len(text)))]
    if kind == 1:  # flipped bytes (may make invalid UTF-8)
        data = bytearray(text)
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(len(data))
            data[position] ^= 1 << rng.randrange(8)
        return bytes(data).replace(b"\n", b" ").replace(b"\r", b" ")
    if kind == 2:  # a field deleted
        path = some_path(rng, message)
        return dumps(replaced(message, path, DELETE)) if path else b"{}"
    if kind in (3, 4, 5):  # a field of another JSON type
        path = some_path(rng, message)
        odd = rng.choice(ODD_VALUES)
        return dumps(replaced(message, path, odd)) if path else dumps(odd)
    if kind == 6:  # a huge string
        path = some_path(rng, message, str) or some_path(rng, message)
        huge = rng.choice('xé"\\') * rng.randint(10_000, 200_000)
        return dumps(replaced(message, path, huge)) if path else dumps(huge)
    if kind == 7:  # deep nesting
        depth = 3_000
        path = some_path(rng, message)
        nested = "[" * depth + "1" + "]" * depth
        placeholder = "__deep__"
        text = dumps(replaced(message, path, placeholder) if path else placeholder)
        return text.replace(f'"{placeholder}"'.encode(), nested.encode(), 1)
    if kind == 8:  # duplicate keys: each key of the root object once more, with odd values
        if not isinstance(message, dict) or not message:
            return b'{"a":1,"a":2}'
        key = rng.choice(sorted(message))
        return b"{" + dumps(key) + b":" + dumps(rng.choice(ODD_VALUES)) + b"," + text.lstrip()[1:]
    if kind == 9:  # a line that is not JSON
        return rng.choice([b"not json", b"{", b"}", b"[1,2", b"null", b'"text"', b"0", b"[]"])
    if kind == 10:  # invalid UTF-8
        position = rng.randrange(len(text))
        invalid = rng.choice([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"])
        return text[:position] + invalid + text[position:]
    if kind == 11:  # a hostile database or table name
        names = [p for p in paths(message) if p and p[-1] in NAME_KEYS]
        path = rng.choice(names) if names else some_path(rng, message, str)
        name = PREFIX + rng.choice(HOSTILE_NAMES)
        return dumps(replaced(message, path, name)) if path else dumps(name)
    if kind == 12:  # hostile column names: a key added to an object of the message
        objects = [p for p in paths(message) if isinstance(value_at(message, p), dict)]
        path = rng.choice(objects) if objects else ()
        target = value_at(message, path)
        name = rng.choice(HOSTILE_NAMES)
        widened = {**target, name: "v", name.upper(): "w"}
        return dumps(replaced(message, path, widened))
    # kind 13: an empty array or object where one was
    path = some_path(rng, message, list) or some_path(rng, message, dict)
    return dumps(replaced(message, path, [] if rng.random() < 0.5 else {})) if path else b"[]"


def renamed_avro(record: bytes, prefix: str = PREFIX) -> bytes:
    """A DTS Avro record of the bundled `shop.orders` stream with its `objectName` in the fuzz
    namespace (a record without one, a heartbeat, is kept). Avro strings are length-prefixed
    (a zigzag varint: one byte below 64 characters), so the prefix changes too."""
    old, new = b"shop.orders", (prefix + "shop.orders").encode()
    assert record.count(old) <= 1, "one object name per record"
    return record.replace(bytes([2 * len(old)]) + old, bytes([2 * len(new)]) + new)


def mutate_binary(rng: random.Random, record: bytes) -> bytes:
    """One corruption of a binary record: flipped bytes, cut, extended, or random bytes."""
    kind = rng.randrange(4)
    if kind == 0:
        data = bytearray(record)
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    if kind == 1:
        return record[: rng.randrange(len(record))]
    if kind == 2:
        return record + rng.randbytes(rng.randint(1, 64))
    return rng.randbytes(rng.randint(0, 512))


Mutator = Callable[[random.Random, bytes], bytes]


def originals(fmt: str, prefix: str) -> list[bytes]:
    """The format's bundled sample messages, moved into a namespace."""
    if fmt == "dts_avro":
        return [renamed_avro(record, prefix) for record in sample_messages(fmt)]
    return [dumps(renamed(numbers_as_sent(text), prefix)) for text in sample_messages(fmt)]


def mutants(fmt: str, count: int, seed: int) -> list[bytes]:
    """`count` mutants of the format's samples, the same for the same seed."""
    rng = random.Random(f"{seed}:{fmt}")
    mutate: Mutator = mutate_binary if fmt == "dts_avro" else mutate_json
    sources = originals(fmt, PREFIX)
    return [mutate(rng, rng.choice(sources)) for _ in range(count)]


def write_fuzz_files(folder: Path, fmt: str, count: int, seed: int) -> list[Path]:
    """Two landing files of one format: the control (the samples in the `fuzzctl_`
    namespace, unmutated) and the mutants. Binary records are written as base64 lines."""
    folder.mkdir(parents=True, exist_ok=True)
    suffix = ".b64" if fmt == "dts_avro" else ".jsonl"
    files = {
        folder / f"{fmt}.control{suffix}": originals(fmt, CONTROL_PREFIX),
        folder / f"{fmt}.mutants{suffix}": mutants(fmt, count, seed),
    }
    for path, messages in files.items():
        if fmt == "dts_avro":
            messages = [base64.b64encode(message) for message in messages]
        path.write_bytes(b"".join(message + b"\n" for message in messages))
    return list(files)


# The project's limits (macros/cdc_lake_limits.sql, the README's "Bad input").
MESSAGE_CHARACTERS = 16_777_216
NAME_CHARACTERS = 256
ROW_COLUMNS = 4_096
JSON_DEPTH = 1_000  # Spark's JSON parser reads no deeper (Jackson's default nesting limit)
NAME_REASON = f"a database, schema or table name is over the limit of {NAME_CHARACTERS} characters"
COLUMNS_REASON = f"a row image of more than {ROW_COLUMNS} columns is over the limit"


def limit_messages() -> list[tuple[bytes, list[str | None]]]:
    """Canal messages at each limit and one past it, with the outcome expected of each row:
    None (staged) or the rejection reason. Names are in the `fuzz_` namespace, a table each."""

    def canal(table: Any, rows: list[dict[str, Any]]) -> bytes:
        return dumps(
            {"data": rows, "database": PREFIX + "limits", "table": table, "pkNames": ["id"]}
            | {"type": "INSERT", "isDdl": False, "es": 1700000000000, "ts": 1700000000001}
        )

    def nested(depth: int) -> bytes:
        """A message nested `depth` levels deep: the message, `data`, a row, then arrays."""
        placeholder = canal(f"{PREFIX}depth_{depth}", [{"id": "1", "v": "__deep__"}])
        deep = "[" * (depth - 3) + "1" + "]" * (depth - 3)
        return placeholder.replace(b'"__deep__"', deep.encode())

    def wide(columns: int) -> dict[str, str]:
        return {"id": "2"} | {f"c{number}": "x" for number in range(1, columns)}

    longest, too_long = "n" * NAME_CHARACTERS, "n" * (NAME_CHARACTERS + 1)
    huge = canal(f"{PREFIX}size", [{"id": "1", "v": "x" * MESSAGE_CHARACTERS}])
    return [
        (canal(PREFIX + longest[len(PREFIX) :], [{"id": "1"}]), [None]),
        (canal(PREFIX + too_long[len(PREFIX) :], [{"id": "1"}]), [NAME_REASON]),
        (canal([], [{"id": "1"}]), ["table name is a JSON array or object, not text"]),
        (canal({"a": 1}, [{"id": "1"}]), ["table name is a JSON array or object, not text"]),
        (nested(JSON_DEPTH), [None]),
        # Spark reads a level or so more than the limit; well past it, nothing is read.
        (nested(3 * JSON_DEPTH), [f"not valid JSON, or nested over {JSON_DEPTH} levels deep"]),
        (canal(f"{PREFIX}columns", [{"id": "1"}, wide(ROW_COLUMNS)]), [None, None]),
        (canal(f"{PREFIX}columns", [{"id": "3"}, wide(ROW_COLUMNS + 1)]), [None, COLUMNS_REASON]),
        (canal(f"{PREFIX}column_names", [{"id": "1", longest: "x"}]), [None]),
        # A column name is data in the row maps: kept, reported by a test, left out of typed
        # models (checking every key of every row in staging would cost a second per 1 M).
        (canal(f"{PREFIX}column_names", [{"id": "2", too_long: "x"}]), [None]),
        (huge, [f"message of {len(huge)} characters is over the limit of {MESSAGE_CHARACTERS}"]),
    ]


def control_key_settings(project_vars: dict[str, Any]) -> dict[str, dict[str, list[str]]]:
    """The key-column vars (`<format>_primary_keys`) with each table's entry also under its
    control copy's table key (every name part in the `fuzzctl_` namespace), so the control
    copies are keyed as their originals are."""
    settings = {}
    for name, tables in project_vars.items():
        if name.endswith("_primary_keys"):
            controls = {
                ".".join(CONTROL_PREFIX + part for part in table_key.split(".")): columns
                for table_key, columns in tables.items()
            }
            settings[name] = {**tables, **controls}
    return settings
