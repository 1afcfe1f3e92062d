"""The parts of `cdc-lake load` that run in the client, tested without Spark.

They decide which SQL reaches the server (envelope, quoting, casts) and which content counts
as already loaded (the hash), so a mistake here loads wrong or duplicate data silently.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from cdc_lake import loader
from cdc_lake.formats import FORMATS, LOADED_FILES_COLUMNS, upgrade_statements
from cdc_lake.loader import (
    KCAT_SCHEMA,
    detect_envelope,
    expand_paths,
    file_encoding,
    file_rows_query,
    inspect_file,
    sql_string,
)

LOADED_AT = "2024-05-01 12:00:00.000000"

KCAT_LINE = json.dumps(
    {
        "topic": "dw_sync",
        "partition": 0,
        "offset": 42,
        "tstype": "create",
        "ts": 1620457896977,
        "broker": 1,
        "key": None,
        "payload": '{"payload": {"op": "INSERT"}}',
    }
).encode()

# A DataWorks message has "payload" too, but none of the other kcat keys.
DATAWORKS_LINE = json.dumps(
    {
        "schema": {"dataColumn": [{"name": "id", "type": "LONG"}], "primaryKey": None},
        "payload": {"before": None, "after": {"dataColumn": {"id": 1}}, "op": "INSERT"},
        "version": "0.0.1",
    }
).encode()


# --- detect_envelope -------------------------------------------------------------------------


def test_kcat_envelope_is_detected() -> None:
    assert detect_envelope(KCAT_LINE) == "kcat"


def test_kcat_tombstone_with_null_payload_is_still_kcat() -> None:
    line = json.dumps({"topic": "t", "partition": 1, "offset": 7, "payload": None}).encode()
    assert detect_envelope(line) == "kcat"


@pytest.mark.parametrize(
    "line",
    [
        DATAWORKS_LINE,
        b'{"topic": "t", "payload": "x"}',  # some kcat keys are not enough
        b"{not json",
        b"",
        b"\xff\xfe\x00",
        b'[{"topic": "t", "partition": 0, "offset": 1, "payload": "x"}]',
        b'"a string"',
    ],
    ids=["dataworks", "partial-keys", "invalid-json", "empty", "not-utf8", "array", "scalar"],
)
def test_anything_else_is_bare_json_lines(line: bytes) -> None:
    assert detect_envelope(line) == "jsonl"


# --- inspect_file ----------------------------------------------------------------------------


def test_inspect_file_hashes_and_sizes_the_content(tmp_path: Path) -> None:
    content = DATAWORKS_LINE + b"\n" + DATAWORKS_LINE + b"\n"
    path = tmp_path / "messages.jsonl"
    path.write_bytes(content)
    assert inspect_file(path) == (hashlib.sha256(content).hexdigest(), "jsonl", len(content))


def test_inspect_file_skips_leading_blank_lines(tmp_path: Path) -> None:
    content = b"\n  \n\t\n" + KCAT_LINE + b"\n" + DATAWORKS_LINE + b"\n"
    path = tmp_path / "kcat.json"
    path.write_bytes(content)
    sha, envelope, size = inspect_file(path)
    assert envelope == "kcat"
    assert sha == hashlib.sha256(content).hexdigest()
    assert size == len(content)


def test_inspect_file_of_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert inspect_file(path) == (hashlib.sha256(b"").hexdigest(), "jsonl", 0)


def test_inspect_file_reads_past_the_first_chunk(tmp_path: Path) -> None:
    """Blank lines longer than one read (1 MiB) must not hide the first message line."""
    content = b"\n" * (1 << 20) + b"   \n" + KCAT_LINE + b"\n"
    path = tmp_path / "late.json"
    path.write_bytes(content)
    assert inspect_file(path) == (hashlib.sha256(content).hexdigest(), "kcat", len(content))


def test_inspect_file_detects_a_first_line_longer_than_one_read(tmp_path: Path) -> None:
    big = {"topic": "t", "partition": 0, "offset": 1, "payload": "x" * (1 << 20)}
    path = tmp_path / "big.json"
    path.write_bytes(json.dumps(big).encode() + b"\n")
    assert inspect_file(path)[1] == "kcat"


# --- expand_paths ----------------------------------------------------------------------------


def test_directories_expand_recursively_sorted_without_hidden_entries(tmp_path: Path) -> None:
    root = tmp_path / "in"
    for relative in ["b.jsonl", "a.jsonl", "sub/c.jsonl", "sub/deeper/d.jsonl"]:
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text("{}\n")
    for hidden in [".hidden.jsonl", ".git/objects/x", "sub/.partial.jsonl"]:
        (root / hidden).parent.mkdir(parents=True, exist_ok=True)
        (root / hidden).write_text("{}\n")
    assert expand_paths([root]) == [
        root / "a.jsonl",
        root / "b.jsonl",
        root / "sub/c.jsonl",
        root / "sub/deeper/d.jsonl",
    ]


def test_named_files_keep_their_order_and_follow_directories(tmp_path: Path) -> None:
    first, second = tmp_path / "z.jsonl", tmp_path / "y.jsonl"
    folder = tmp_path / "dir"
    folder.mkdir()
    inside = folder / "x.jsonl"
    for path in (first, second, inside):
        path.write_text("{}\n")
    assert expand_paths([first, folder, second]) == [first, inside, second]


def test_a_named_hidden_file_is_loaded(tmp_path: Path) -> None:
    """Only hidden entries found under a directory are skipped, not one the user names."""
    path = tmp_path / ".named.jsonl"
    path.write_text("{}\n")
    assert expand_paths([path]) == [path]


def test_a_missing_path_raises(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(FileNotFoundError, match=re.escape(str(missing))):
        expand_paths([missing])


# --- sql_string ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "literal"),
    [
        ("plain", "'plain'"),
        ("", "''"),
        ("it's", r"'it\'s'"),
        ("C:\\data\\x", r"'C:\\data\\x'"),
        ("\\'", r"'\\\''"),
        ('say "hi"', "'say \"hi\"'"),
    ],
)
def test_sql_string_escapes_quotes_and_backslashes(text: str, literal: str) -> None:
    assert sql_string(text) == literal


# --- file_rows_query ------------------------------------------------------------------------


@pytest.fixture
def message_file(tmp_path: Path) -> Path:
    path = tmp_path / "messages.jsonl"
    path.write_bytes(DATAWORKS_LINE + b"\n")
    return path


def test_jsonl_insert_reads_the_file_with_the_text_source(message_file: Path) -> None:
    statement = file_rows_query("dataworks_json", message_file, "jsonl", LOADED_AT)
    assert statement.startswith("select\n")
    assert f"from text.`{message_file.resolve().as_uri()}`" in statement
    assert "where trim(value) != ''" in statement
    assert f"timestamp '{LOADED_AT}' as loaded_at" in statement
    assert f"'{message_file.resolve()}' as source_file" in statement
    assert "cast(null as bigint) as kafka_offset" in statement
    assert "from_json" not in statement


def test_string_formats_keep_the_text_value(message_file: Path) -> None:
    statement = file_rows_query("dataworks_json", message_file, "jsonl", LOADED_AT)
    assert "\n    value as value," in statement
    assert "as binary" not in statement


@pytest.mark.parametrize("fmt", sorted(fmt for fmt, kind in FORMATS.items() if kind == "binary"))
def test_binary_formats_cast_the_value_to_binary(message_file: Path, fmt: str) -> None:
    jsonl = file_rows_query(fmt, message_file, "jsonl", LOADED_AT)
    assert jsonl.startswith("select\n")
    assert "cast(value as binary) as value" in jsonl
    kcat = file_rows_query(fmt, message_file, "kcat", LOADED_AT)
    assert (
        "cast(case when envelope.offset is null then line else envelope.payload end as binary)"
        in kcat
    )


def test_kcat_insert_parses_the_envelope(message_file: Path) -> None:
    statement = file_rows_query("dataworks_json", message_file, "kcat", LOADED_AT)
    assert statement.startswith("select\n")
    assert f"from_json(value, '{KCAT_SCHEMA}') as envelope" in statement
    assert f"from text.`{message_file.resolve().as_uri()}`" in statement
    for column in ("topic", "partition", "offset", "key"):
        assert f"envelope.{column} as kafka_{column}" in statement
    assert "timestamp_millis(envelope.ts)" in statement
    assert "as binary" not in statement


def test_file_names_with_quotes_and_backticks_stay_inside_their_literals(tmp_path: Path) -> None:
    path = tmp_path / "it's `odd`.jsonl"
    path.write_bytes(DATAWORKS_LINE + b"\n")
    statement = file_rows_query("dataworks_json", path, "jsonl", LOADED_AT)
    assert sql_string(str(path.resolve())) + " as source_file" in statement
    source = statement.split("from text.`", 1)[1].rsplit("`\nwhere", 1)[0]
    assert "`" not in source.replace("``", "")


def test_the_path_spark_reads_is_not_percent_encoded(tmp_path: Path) -> None:
    path = tmp_path / "day 1.jsonl"
    path.write_bytes(DATAWORKS_LINE + b"\n")
    statement = file_rows_query("dataworks_json", path, "jsonl", LOADED_AT)
    assert f"from text.`file://{path.resolve()}`" in statement


def test_auto_encoding_follows_the_file_name() -> None:
    assert file_encoding(Path("records.b64"), "auto") == "base64"
    assert file_encoding(Path("records.BASE64"), "auto") == "base64"
    assert file_encoding(Path("records.jsonl"), "auto") == "text"
    assert file_encoding(Path("records.b64"), "text") == "text"


def test_an_unreadable_file_stops_the_load_before_anything_lands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read as root, no file is unreadable: the failure is simulated where the file is opened.
    The cursor is never touched (None): nothing is bootstrapped or landed."""
    (tmp_path / "a.jsonl").write_text("{}\n")
    (tmp_path / "b.jsonl").write_text("{}\n")
    real = loader.inspect_file

    def inspect(path: Path) -> tuple[str, str, int]:
        if path.name == "b.jsonl":
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(loader, "inspect_file", inspect)
    with pytest.raises(OSError, match=r"cannot read .*b\.jsonl: Permission denied; nothing"):
        loader.load_files(None, "canal_json", [tmp_path])


@pytest.mark.parametrize("name", ["", "a/b", "east coast", "x" * 65, "dbserver1;drop", "é"])
def test_a_source_name_outside_the_rule_is_refused_before_anything_is_read(
    tmp_path: Path, name: str
) -> None:
    with pytest.raises(ValueError, match="must be 1 to 64 letters, digits"):
        loader.load_files(None, "canal_json", [tmp_path / "not read"], source=name)


@pytest.mark.parametrize("name", ["mysql-east", "dbserver1", "a.b_c-D", "x" * 64])
def test_a_source_name_lands_in_its_own_column(name: str) -> None:
    statement = loader.file_rows_query(
        "canal_json", Path("/d/f.jsonl"), "jsonl", "2024-01-01 00:00:00", source=name
    )
    assert f"    '{name}' as source_name,\n" in statement
    unnamed = loader.file_rows_query("canal_json", Path("/d/f.jsonl"), "jsonl", "2024-01-01")
    assert "    cast(null as string) as source_name,\n" in unnamed


def test_a_given_topic_is_the_topic_of_every_bare_message(message_file: Path) -> None:
    statement = file_rows_query(
        "debezium_json", message_file, "jsonl", LOADED_AT, topic="dbserver1.inventory.customers"
    )
    assert "\n    'dbserver1.inventory.customers' as kafka_topic,\n" in statement
    unnamed = file_rows_query("debezium_json", message_file, "jsonl", LOADED_AT)
    assert "\n    cast(null as string) as kafka_topic,\n" in unnamed


def test_a_kcat_envelope_keeps_its_own_topic_over_the_given_one(message_file: Path) -> None:
    """The envelope is what Kafka said; the given topic only fills a line without one."""
    statement = file_rows_query(
        "debezium_json", message_file, "kcat", LOADED_AT, topic="other.topic"
    )
    assert "\n    coalesce(envelope.topic, 'other.topic') as kafka_topic,\n" in statement


@pytest.mark.parametrize("topic", ["", "a/b", "two words", "x" * 250, "t'; drop", "é"])
def test_a_topic_kafka_would_refuse_is_refused_before_anything_is_read(
    tmp_path: Path, topic: str
) -> None:
    with pytest.raises(ValueError, match="is not a Kafka topic name"):
        loader.load_files(None, "debezium_json", [tmp_path / "not read"], topic=topic)
    with pytest.raises(ValueError, match="is not a Kafka topic name"):
        file_rows_query("debezium_json", tmp_path / "f.jsonl", "jsonl", LOADED_AT, topic=topic)


@pytest.mark.parametrize("topic", ["server1.DEBEZIUM.ORDERS", "a", "x_y-z.1", "x" * 249])
def test_a_kafka_topic_name_is_taken_as_given(topic: str) -> None:
    statement = file_rows_query(
        "debezium_json", Path("/d/f.jsonl"), "jsonl", LOADED_AT, topic=topic
    )
    assert f"    '{topic}' as kafka_topic,\n" in statement


def test_a_raw_table_of_an_earlier_version_gets_the_columns_it_lacks() -> None:
    old_landing = [
        "value",
        "kafka_topic",
        "source_position",
        "loaded_at",
        "# Partition Information",
    ]
    assert upgrade_statements("cdc_raw.canal_json", old_landing) == [
        "alter table cdc_raw.canal_json add columns ("
        "kafka_partition int, kafka_offset bigint, kafka_key string, kafka_timestamp timestamp, "
        "source_file string, source_name string, kafka_headers map<string,string>)"
    ]
    current = [name for name, _ in LOADED_FILES_COLUMNS]
    assert upgrade_statements("cdc_raw.loaded_files", current) == []
    assert upgrade_statements("cdc_raw.loaded_files", current[:-1]) == [
        "alter table cdc_raw.loaded_files add columns (source_name string)"
    ]
