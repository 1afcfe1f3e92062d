"""`cdc-lake load` through a real server: Spark reads the files, lineage lands, nothing twice."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import query

from cdc_lake.client import run
from cdc_lake.formats import landing_table
from cdc_lake.loader import load_files, sql_string

pytestmark = pytest.mark.spark

FORMAT = "canal_json"
# The landing schema of this module's loads and tables (fixture own_landing_schema).
RAW_SCHEMA = "loader_test_raw"


@pytest.fixture(autouse=True)
def own_landing_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """These loads go to a landing schema of their own (`CDC_LAKE_RAW_SCHEMA`): in the
    session's landing tables, the session build would stage them when it runs after this
    module, and the pipeline tests would find their messages among the rejected ones."""
    monkeypatch.setenv("CDC_LAKE_RAW_SCHEMA", RAW_SCHEMA)


def landed(cursor: Any, path: Path) -> list[dict[str, Any]]:
    return query(
        cursor,
        f"""
        select value, kafka_topic, kafka_partition, kafka_offset, kafka_key,
            cast(kafka_timestamp as string) as kafka_timestamp, source_position
        from {landing_table(FORMAT)}
        where source_file = '{path.resolve()}'
        order by source_position""",
    )


def test_json_lines_land_untouched_in_file_order(cursor: Any, tmp_path: Path) -> None:
    path = tmp_path / "day 1 [copy].jsonl"  # spaces and glob characters in the name
    messages = [json.dumps({"id": i, "text": "é\\u00e9 'quoted'"}) for i in range(5)]
    path.write_text("\n".join(messages[:3]) + "\n\n   \n" + "\n".join(messages[3:]) + "\n")
    [result] = load_files(cursor, FORMAT, [path])
    assert (result.envelope, result.messages, result.skipped) == ("jsonl", 5, False)
    rows = landed(cursor, path)
    assert [row["value"] for row in rows] == messages  # blank lines are not messages
    assert all(row["kafka_topic"] is None and row["kafka_offset"] is None for row in rows)
    positions = [row["source_position"] for row in rows]
    assert positions == sorted(positions)


def test_kcat_envelopes_give_kafka_lineage(cursor: Any, tmp_path: Path) -> None:
    path = tmp_path / "kcat.json"
    envelopes = [
        {"topic": "orders", "partition": 2, "offset": 41, "tstype": "create",
         "ts": 1620457896977, "broker": 1, "key": "k1", "payload": '{"a":1}'},
        # a tombstone: the value is NULL, the coordinates are kept
        {"topic": "orders", "partition": 2, "offset": 42, "ts": 1620457896978,
         "key": "k1", "payload": None},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(e) for e in envelopes) + "\nnot an envelope\n")
    [result] = load_files(cursor, FORMAT, [path])
    assert (result.envelope, result.messages) == ("kcat", 3)
    rows = landed(cursor, path)
    assert [(r["value"], r["kafka_topic"], r["kafka_partition"], r["kafka_offset"],
             r["kafka_key"], r["kafka_timestamp"]) for r in rows] == [
        ('{"a":1}', "orders", 2, 41, "k1", "2021-05-08 07:11:36.977"),
        (None, "orders", 2, 42, "k1", "2021-05-08 07:11:36.978"),
        # a line that is not an envelope is kept whole, for staging to reject
        ("not an envelope", None, None, None, None, None),
    ]  # fmt: skip


def test_loading_the_same_content_again_adds_nothing(cursor: Any, tmp_path: Path) -> None:
    first = tmp_path / "a" / "batch.jsonl"
    first.parent.mkdir()
    first.write_text('{"same": true}\n')
    copy = tmp_path / "b.jsonl"  # same bytes under another name: the same messages
    copy.write_bytes(first.read_bytes())
    results = load_files(cursor, FORMAT, [tmp_path])
    assert [(r.path.name, r.skipped) for r in results] == [
        ("batch.jsonl", False),
        ("b.jsonl", True),
    ]
    again = load_files(cursor, FORMAT, [first])
    assert again[0].skipped
    count = query(
        cursor,
        f"select count(*) as n from {landing_table(FORMAT)} where value = '{{\"same\": true}}'",
    )
    assert count == [{"n": 1}]


def test_binary_formats_land_bytes(cursor: Any, tmp_path: Path) -> None:
    path = tmp_path / "blob.jsonl"
    path.write_text('{"payload":{"op":"MHEARTBEAT"}}\n')
    load_files(cursor, "dts_avro", [path])
    rows = query(
        cursor,
        f"select typeof(value) as kind, cast(value as string) as text "
        f"from {landing_table('dts_avro')} where source_file = '{path.resolve()}'",
    )
    assert rows == [{"kind": "binary", "text": '{"payload":{"op":"MHEARTBEAT"}}'}]


def test_base64_lines_land_the_exact_bytes_of_binary_messages(cursor: Any, tmp_path: Path) -> None:
    messages = [bytes(range(256)), b"\x00\n\r\xff", b""]
    path = tmp_path / "avro.b64"
    lines = [base64.b64encode(m).decode() for m in messages[:2]]
    path.write_text("\n".join([*lines, "not base64 !"]) + "\n")
    [result] = load_files(cursor, "dts_avro", [path], encoding="base64")
    assert result.messages == 3
    rows = query(
        cursor,
        f"select hex(value) as value from {landing_table('dts_avro')} "
        f"where source_file = '{path.resolve()}' order by source_position",
    )
    assert [bytes.fromhex(r["value"]) for r in rows] == [
        messages[0],
        messages[1],
        b"not base64 !",  # kept as it was, for staging to reject
    ]


def test_base64_kcat_payloads(cursor: Any, tmp_path: Path) -> None:
    payload = b"\xc3\x28 binary"
    envelope = {"topic": "dts", "partition": 0, "offset": 9, "key": None,
                "payload": base64.b64encode(payload).decode()}  # fmt: skip
    path = tmp_path / "kcat-b64.json"
    path.write_text(json.dumps(envelope) + "\n")
    load_files(cursor, "dts_avro", [path], encoding="base64")
    rows = query(
        cursor,
        f"select hex(value) as value, kafka_offset from {landing_table('dts_avro')} "
        f"where source_file = '{path.resolve()}'",
    )
    assert rows == [{"value": payload.hex().upper(), "kafka_offset": 9}]


def test_a_read_of_some_loads_finds_exactly_their_rows(cursor: Any, tmp_path: Path) -> None:
    """The server picks a read's load partitions by their names (the metastore is given no
    filter on a timestamp): the names, escaped and in microseconds, must select exactly the
    loads the filter names, by equality and by range."""
    setting = query(cursor, "set spark.sql.hive.metastorePartitionPruningFastFallback")
    assert [row["value"] for row in setting] == ["true"]
    paths = []
    for number in range(3):
        path = tmp_path / f"load-{number}.json"
        path.write_text(json.dumps({"load": number}) + "\n")
        load_files(cursor, FORMAT, [path])
        paths.append(str(path.resolve()))
    table = landing_table(FORMAT)
    files = ", ".join(sql_string(path) for path in paths)
    loads = query(
        cursor,
        f"select source_file, cast(loaded_at as string) as loaded_at from {table} "
        f"where source_file in ({files}) order by loaded_at",
    )
    assert [row["source_file"] for row in loads] == paths
    second = loads[1]["loaded_at"]
    equal = query(cursor, f"select source_file from {table} where loaded_at = timestamp'{second}'")
    assert [row["source_file"] for row in equal] == [paths[1]]
    later = query(
        cursor,
        f"select source_file from {table} where loaded_at > timestamp'{second}' "
        f"and source_file in ({files})",
    )
    assert [row["source_file"] for row in later] == [paths[2]]


def test_a_read_of_many_partitions_lists_them_all(cursor: Any) -> None:
    """The server lists a read's partitions itself, never with a job of a task per
    partition (a landing table gets a partition per load, the history delta two per run):
    a read of more partitions than Spark's threshold for such a job (32) after their
    listings were dropped (`refresh table`) must still find every partition's rows."""
    setting = query(cursor, "set spark.sql.sources.parallelPartitionDiscovery.threshold")
    assert [row["value"] for row in setting] == [str(2**31 - 1)]
    table = f"{RAW_SCHEMA}.many_partitions"
    run(cursor, f"create schema if not exists {RAW_SCHEMA}")
    run(cursor, f"drop table if exists {table}")
    run(
        cursor,
        f"create table {table} using parquet partitioned by (part) "
        "as select id, id % 40 as part from range(120)",
    )
    run(cursor, f"refresh table {table}")
    counted = query(
        cursor,
        f"select count(*) as ids, count(distinct part) as parts, sum(id) as total from {table}",
    )
    assert counted == [{"ids": 120, "parts": 40, "total": sum(range(120))}]
