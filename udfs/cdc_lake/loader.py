"""`cdc-lake load`: raw messages from files into the landing tables, read by Spark itself.

The client never pushes rows through Thrift: it sends one `insert ... select` that makes
Spark read the files (`text` data source, a union of up to FILES_PER_STATEMENT of them), so a
file of millions of messages loads at Spark's scan speed, and a folder of small files does
not pay a Spark job and three more round trips per file. The client reads each file once to
hash it (the load registry makes loading the same content twice a no-op) and to look at its
first line (envelope detection). Paths must be readable by the server as well as the client:
true of the embedded server; on a cluster, use a filesystem both see.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from cdc_lake.client import run
from cdc_lake.formats import (
    FORMATS,
    bootstrap_statements,
    check_source_name,
    landing_table,
    loaded_files_table,
    upgrade_statements,
)

# kcat -J writes one JSON object per message with these keys (plus tstype, broker, headers).
KCAT_KEYS = frozenset({"topic", "partition", "offset", "payload"})
KCAT_SCHEMA = "topic string, partition int, offset bigint, key string, ts bigint, payload string"
MAX_EPOCH_MS = 253402300799999  # 9999-12-31: beyond it Spark's timestamps overflow
# Envelope detection reads the first message line whole, up to this size.
MAX_FIRST_LINE_BYTES = 16 << 20
# Hadoop reads a path as a glob: these characters must be escaped to stand for themselves.
GLOB_SPECIAL = re.compile(r"([\\\[\]{}*?])")
# Kafka's rule for a topic name (kafka.common.internals.Topic): what `--topic` may say.
TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")
# Files one `insert` reads: a statement per file costs a Spark job and three round trips per
# file, and a union of many more files is a plan Spark is slow to analyse.
FILES_PER_STATEMENT = 50


@dataclass(frozen=True)
class LoadResult:
    """What happened to one file."""

    path: Path
    envelope: str  # "jsonl" or "kcat"
    messages: int
    skipped: bool  # True when the same content was loaded before

    def describe(self, fmt: str, source: str | None = None) -> str:
        target = landing_table(fmt) + ("" if source is None else f" (source {source})")
        if self.skipped:
            return f"{self.path}: already loaded into {target}, nothing added"
        return f"{self.path}: {self.messages} messages ({self.envelope}) -> {target}"


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files named, and every regular non-hidden file below each directory named, sorted."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files += sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
        elif path.is_file():
            files.append(path)
        else:
            raise FileNotFoundError(f"no such file or directory: {path}")
    return files


def inspect_file(path: Path) -> tuple[str, str, int]:
    """(sha256 of the content, envelope kind, size) from one pass over the file."""
    digest = hashlib.sha256()
    head = b""
    first_line: bytes | None = None
    size = 0
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
            size += len(chunk)
            if first_line is None:
                head = (head + chunk).lstrip()
                newline = head.find(b"\n")
                if newline >= 0:
                    first_line = head[:newline]
                elif len(head) > MAX_FIRST_LINE_BYTES:
                    first_line = head
    return digest.hexdigest(), detect_envelope(head if first_line is None else first_line), size


def detect_envelope(first_line: bytes) -> str:
    """ "kcat" when the first message line is a kcat -J envelope, else "jsonl" (bare values)."""
    try:
        parsed = json.loads(first_line)
    except (ValueError, RecursionError):
        return "jsonl"
    if isinstance(parsed, dict) and parsed.keys() >= KCAT_KEYS:
        return "kcat"
    return "jsonl"


def sql_string(text: str) -> str:
    """A Spark SQL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def optional_string(text: str | None) -> str:
    """A Spark SQL string literal, or `null`."""
    return "null" if text is None else sql_string(text)


def prepare_raw_tables(cursor: Any, fmt: str, *tables: str) -> None:
    """Make the format's landing table and the raw layer's own tables if missing, and give
    `tables` made by an earlier version the columns they lack (the server does both for every
    table at start; a load does it for what it writes, as a server that predates a column
    may serve it)."""
    for statement in bootstrap_statements([fmt]):
        run(cursor, statement)
    for table in tables:
        present = [row[0] for row in run(cursor, f"describe table {table}")]
        for statement in upgrade_statements(table, present):
            run(cursor, statement)


def spark_path(path: Path) -> str:
    """The file as Spark's `text` source must be given it: a file URI, not percent-encoded
    (Spark does not decode it), with Hadoop's glob characters escaped."""
    return "file://" + GLOB_SPECIAL.sub(r"\\\1", str(path.resolve()))


def value_expression(text: str, fmt: str, encoding: str) -> str:
    """SQL for the landed value from the message's text in the file.

    `encoding` "text": the text is the message (binary formats land its UTF-8 bytes);
    "base64": the text is base64 of the message bytes (the way to carry binary messages such
    as DTS Avro in a line-based file). Text that is not valid base64 lands unchanged, for
    staging to reject with the rest of the message kept. (`load_files` resolves "auto".)
    """
    binary = FORMATS[fmt] == "binary"
    if encoding == "text":
        return f"cast({text} as binary)" if binary else text
    if encoding != "base64":
        raise ValueError(f"unknown encoding {encoding!r}: text or base64")
    decoded = f"try_to_binary({text}, 'base64')"
    if binary:
        return f"coalesce({decoded}, cast({text} as binary))"
    return f"coalesce(cast({decoded} as string), {text})"


def file_rows_query(
    fmt: str,
    path: Path,
    envelope: str,
    loaded_at: str,
    encoding: str = "text",
    source: str | None = None,
    topic: str | None = None,
) -> str:
    """The `select` that makes Spark read one file as rows of the landing table of `fmt`
    (`load_files` inserts a union of them). `topic` is the Kafka topic the file's messages
    were read from: some formats name their table only there. A kcat envelope's own topic
    wins over it (the envelope is what Kafka said)."""
    uri = spark_path(path).replace("`", "``")
    given_topic = "cast(null as string)" if check_topic(topic) is None else sql_string(topic)
    envelope_topic = (
        "envelope.topic" if topic is None else f"coalesce(envelope.topic, {given_topic})"
    )
    source_name = (
        "cast(null as string)" if check_source_name(source) is None else sql_string(source)
    )
    lineage = (
        f"{sql_string(str(path.resolve()))} as source_file,\n"
        "    monotonically_increasing_id() as source_position,\n"
        f"    {source_name} as source_name,\n"
        "    cast(null as map<string, string>) as kafka_headers,\n"
        f"    timestamp {sql_string(loaded_at)} as loaded_at"
    )
    if envelope == "kcat":
        # A line that is not an envelope is kept whole as the value (staging rejects it); a
        # valid envelope with a null payload (a Kafka tombstone) lands as a NULL value.
        payload = "case when envelope.offset is null then line else envelope.payload end"
        return f"""select
    {value_expression(payload, fmt, encoding)} as value,
    {envelope_topic} as kafka_topic,
    envelope.partition as kafka_partition,
    envelope.offset as kafka_offset,
    envelope.key as kafka_key,
    case when envelope.ts between 0 and {MAX_EPOCH_MS} then timestamp_millis(envelope.ts) end
        as kafka_timestamp,
    {lineage}
from (
    select value as line, from_json(value, {sql_string(KCAT_SCHEMA)}) as envelope
    from text.`{uri}`
    where trim(value) != ''
) as lines"""
    return f"""select
    {value_expression("value", fmt, encoding)} as value,
    {given_topic} as kafka_topic,
    cast(null as int) as kafka_partition,
    cast(null as bigint) as kafka_offset,
    cast(null as string) as kafka_key,
    cast(null as timestamp) as kafka_timestamp,
    {lineage}
from text.`{uri}`
where trim(value) != ''"""


def check_topic(topic: str | None) -> str | None:
    """The topic as given, or a ValueError before anything is read: a name Kafka would refuse
    is a typo, and a wrong topic would name the messages' tables wrongly."""
    if topic is not None and not TOPIC_NAME.fullmatch(topic):
        raise ValueError(
            f"topic {topic!r} is not a Kafka topic name (1 to 249 of A-Z a-z 0-9 . _ -)"
        )
    return topic


def file_encoding(path: Path, encoding: str) -> str:
    """ "auto" is base64 for files named `*.b64` or `*.base64`, else text."""
    if encoding != "auto":
        return encoding
    return "base64" if path.suffix.lower() in (".b64", ".base64") else "text"


def load_files(
    cursor: Any,
    fmt: str,
    paths: Iterable[Path],
    encoding: str = "auto",
    source: str | None = None,
    topic: str | None = None,
) -> list[LoadResult]:
    """Load every file (directories expanded) into `cdc_raw.<fmt>`; one result per file.

    `encoding` says how each message is written in the files (see `value_expression`);
    "auto" decides per file by its name (`file_encoding`). `source` names the source the
    messages came from (a database server, a sync task): its tables are kept apart from
    another source's tables of the same name. The same file loaded for two sources is two
    loads; loaded twice for one source, one. `topic` is the Kafka topic the messages were
    read from (see `file_rows_query`), for formats that name a table only in the topic.
    """
    landing = landing_table(fmt)
    check_source_name(source)
    check_topic(topic)
    # Every file is read (hashed) before any is loaded: an unreadable one stops the load with
    # its name, before anything landed, and the same command works once it is fixed.
    inspected = []
    for path in expand_paths(paths):
        try:
            inspected.append((path, *inspect_file(path)))
        except OSError as error:
            raise OSError(
                f"cannot read {path}: {error.strerror or error}; nothing loaded"
            ) from None
    prepare_raw_tables(cursor, fmt, landing, loaded_files_table())
    results: list[LoadResult] = []
    for first in range(0, len(inspected), FILES_PER_STATEMENT):
        results += load_file_group(
            cursor, fmt, inspected[first : first + FILES_PER_STATEMENT], encoding, source, topic
        )
    return results


def load_file_group(
    cursor: Any,
    fmt: str,
    files: list[tuple[Path, str, str, int]],
    encoding: str,
    source: str | None,
    topic: str | None = None,
) -> list[LoadResult]:
    """Load these inspected files (path, sha256, envelope, size) with one `insert`: each is a
    load of its own (its own `loaded_at`, a microsecond after the one before), unless the
    registry, or an earlier file of the group, holds its content for this source."""
    source_literal = optional_string(source)
    shas = ", ".join(sorted({sql_string(sha) for _, sha, _, _ in files}))
    held = {
        row[0]
        for row in run(
            cursor,
            f"select file_sha256 from {loaded_files_table()} "
            f"where source_format = {sql_string(fmt)} and file_sha256 in ({shas}) "
            f"and source_name <=> {source_literal}",
        )
    }
    started = datetime.now(timezone.utc)
    new: list[tuple[Path, str, str, int, str]] = []  # path, sha, envelope, size, loaded_at
    for path, sha, envelope, size in files:
        if sha not in held:
            held.add(sha)
            loaded_at = started + timedelta(microseconds=len(new))
            new.append((path, sha, envelope, size, loaded_at.strftime("%Y-%m-%d %H:%M:%S.%f")))
    landing = landing_table(fmt)
    source_files = {path: str(path.resolve()) for path, *_ in new}  # as file_rows_query names it
    counts: dict[str, int] = {}
    if new:
        selects = [
            file_rows_query(
                fmt, path, envelope, loaded_at, file_encoding(path, encoding), source, topic
            )
            for path, _, envelope, _, loaded_at in new
        ]
        run(cursor, f"insert into {landing}\n" + "\nunion all\n".join(selects))
        load_times = ", ".join(f"timestamp {sql_string(loaded_at)}" for *_, loaded_at in new)
        counts = dict(
            run(
                cursor,
                f"select source_file, count(*) from {landing} "
                f"where loaded_at in ({load_times}) group by source_file",
            )
        )
        records = ",\n".join(
            f"({sql_string(fmt)}, {sql_string(source_files[path])}, {sql_string(sha)}, "
            f"{size}, {sql_string(envelope)}, {counts.get(source_files[path], 0)}, "
            f"timestamp {sql_string(loaded_at)}, {source_literal})"
            for path, sha, envelope, size, loaded_at in new
        )
        run(cursor, f"insert into {loaded_files_table()} values\n{records}")
    return [
        LoadResult(path, envelope, counts.get(source_files[path], 0), skipped=False)
        if path in source_files
        else LoadResult(path, envelope, 0, skipped=True)
        for path, _, envelope, _ in files
    ]
