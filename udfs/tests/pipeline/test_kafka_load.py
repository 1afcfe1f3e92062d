"""`cdc-lake load --kafka` against a real broker: what lands, what never does, and the
ledger's refusals (lost and rewound offsets).

Each test lands in a landing schema of its own (`CDC_LAKE_RAW_SCHEMA`), so neither the
session's build nor another test sees its rows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from confluent_kafka import TopicPartition
from support.kafka_broker import Broker, Message, sample_messages
from support.pipeline import node_errors, query, run_dbt
from support.project import SAMPLES

from cdc_lake.client import run
from cdc_lake.formats import FORMATS, bootstrap_statements
from cdc_lake.kafka_loader import KafkaLoadError, KafkaSource, load_kafka


@pytest.fixture
def raw_schema(request: pytest.FixtureRequest) -> Iterator[str]:
    """A landing schema named after the test."""
    name = "kafka_" + request.node.name.removeprefix("test_")[:40].replace("-", "_")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", name)
        yield name


def landed(cursor: Any, schema: str, fmt: str, topic: str) -> list[dict[str, Any]]:
    return query(
        cursor,
        f"""select kafka_partition, kafka_offset, kafka_key, cast(value as string) as value,
            source_file, source_position, source_name, to_json(kafka_headers) as headers
        from {schema}.{fmt} where kafka_topic = '{topic}'
        order by kafka_partition, kafka_offset""",
    )


def ledger(cursor: Any, schema: str, topic: str) -> list[dict[str, Any]]:
    return query(
        cursor,
        f"""select `partition`, gap_from, start_offset, end_offset, messages, lost_messages
        from {schema}.kafka_offsets where topic = '{topic}' and committed_at is not null
        order by loaded_at, `partition`""",
    )


def test_keys_tombstones_and_three_partitions_land_as_produced(
    cursor: Any, kafka_broker: Broker, raw_schema: str
) -> None:
    """Each message lands once with its topic, partition, offset, key, headers and timestamp;
    a null value (a tombstone) lands as a NULL value; a second load finds nothing new."""
    kafka_broker.create_topic("keyed", partitions=3)
    produced = [
        Message(json.dumps({"n": n}).encode(), f"k{n}".encode(), n % 3, (("h", b"v"),))
        for n in range(12)
    ] + [Message(None, b"k0", 0)]
    kafka_broker.produce("keyed", produced)
    source = KafkaSource(kafka_broker.bootstrap, topics=("keyed",))

    result = load_kafka(cursor, "debezium_json", source, "shop")
    again = load_kafka(cursor, "debezium_json", source, "shop")

    assert result.messages == 13 and again.messages == 0 and not again.ranges
    rows = landed(cursor, raw_schema, "debezium_json", "keyed")
    expected = sorted(
        ((m.partition, m.key.decode(), None if m.value is None else m.value.decode())
         for m in produced),
        key=repr,
    )  # fmt: skip
    got = [(r["kafka_partition"], r["kafka_key"], r["value"]) for r in rows]
    assert sorted(got, key=repr) == expected
    for partition in range(3):
        offsets = [r["kafka_offset"] for r in rows if r["kafka_partition"] == partition]
        assert offsets == list(range(len(offsets)))
    assert {(r["source_file"], r["source_name"]) for r in rows} == {
        (f"kafka:keyed/{p}", "shop") for p in range(3)
    }
    assert all(r["source_position"] == r["kafka_offset"] for r in rows)
    assert [r["headers"] for r in rows if r["value"] is None] == [None]
    assert {r["headers"] for r in rows if r["value"] is not None} == {'{"h":"v"}'}
    assert ledger(cursor, raw_schema, "keyed") == [
        {"partition": p, "gap_from": 0, "start_offset": 0, "end_offset": n,
         "messages": n, "lost_messages": 0}
        for p, n in ((0, 5), (1, 4), (2, 4))
    ]  # fmt: skip


def test_aborted_transactions_never_land(
    cursor: Any, kafka_broker: Broker, raw_schema: str
) -> None:
    """Read committed: an aborted transaction's messages never land, a committed one's do,
    and an open one's wait for the load after its commit."""
    kafka_broker.create_topic("transactional")
    producer = kafka_broker.producer(**{"transactional.id": "cdc-lake-test"})
    producer.init_transactions(30)
    for text, commit in (("first", True), ("aborted-1", False), ("second", True)):
        producer.begin_transaction()
        producer.produce("transactional", value=text.encode())
        if text == "aborted-1":
            producer.produce("transactional", value=b"aborted-2")
        producer.flush(30)
        (producer.commit_transaction if commit else producer.abort_transaction)(30)
    producer.begin_transaction()
    producer.produce("transactional", value=b"third")
    producer.flush(30)
    source = KafkaSource(kafka_broker.bootstrap, topics=("transactional",))

    load_kafka(cursor, "canal_json", source)
    before_commit = [r["value"] for r in landed(cursor, raw_schema, "canal_json", "transactional")]
    producer.commit_transaction(30)
    load_kafka(cursor, "canal_json", source)

    assert before_commit == ["first", "second"]
    values = [r["value"] for r in landed(cursor, raw_schema, "canal_json", "transactional")]
    assert values == ["first", "second", "third"]


def test_partitions_added_between_loads_are_read_from_their_start(
    cursor: Any, kafka_broker: Broker, raw_schema: str
) -> None:
    kafka_broker.create_topic("growing", partitions=1)
    kafka_broker.produce("growing", [Message(b"a", partition=0)])
    source = KafkaSource(kafka_broker.bootstrap, pattern="grow.*")
    load_kafka(cursor, "maxwell_json", source)
    kafka_broker.add_partitions("growing", 3)
    kafka_broker.produce("growing", [Message(b"b", partition=0), Message(b"c", partition=2)])

    load_kafka(cursor, "maxwell_json", source)

    rows = landed(cursor, raw_schema, "maxwell_json", "growing")
    assert [(r["kafka_partition"], r["kafka_offset"], r["value"]) for r in rows] == [
        (0, 0, "a"),
        (0, 1, "b"),
        (2, 0, "c"),
    ]


def test_max_messages_leaves_the_rest_for_the_next_load(
    cursor: Any, kafka_broker: Broker, raw_schema: str
) -> None:
    kafka_broker.create_topic("capped", partitions=2)
    kafka_broker.produce("capped", [Message(str(n).encode(), partition=n % 2) for n in range(10)])
    source = KafkaSource(kafka_broker.bootstrap, topics=("capped",))

    first = load_kafka(cursor, "ogg_json", source, max_messages=7)
    second = load_kafka(cursor, "ogg_json", source, max_messages=7)

    assert (first.messages, first.behind, second.messages, second.behind) == (7, 3, 3, 0)
    rows = landed(cursor, raw_schema, "ogg_json", "capped")
    assert sorted(int(r["value"]) for r in rows) == list(range(10))


def test_a_retention_gap_fails_unless_data_loss_is_allowed_then_it_is_recorded(
    cursor: Any, kafka_broker: Broker, raw_schema: str
) -> None:
    """Messages deleted before they were landed (here by deleting records, as retention
    does) stop the load with the lost range; --allow-data-loss lands the rest and records
    the gap in the ledger."""
    kafka_broker.create_topic("retained")
    kafka_broker.produce("retained", [Message(str(n).encode()) for n in range(4)])
    source = KafkaSource(kafka_broker.bootstrap, topics=("retained",))
    load_kafka(cursor, "canal_json", source)
    kafka_broker.produce("retained", [Message(str(n).encode()) for n in range(4, 10)])
    deleted = kafka_broker.admin().delete_records([TopicPartition("retained", 0, 7)])
    for future in deleted.values():
        future.result(30)

    with pytest.raises(KafkaLoadError, match=r"retained partition 0: offsets 4 to 6 .*3 messages"):
        load_kafka(cursor, "canal_json", source)
    result = load_kafka(cursor, "canal_json", source, allow_data_loss=True)

    assert (result.messages, result.lost) == (3, 3)
    rows = landed(cursor, raw_schema, "canal_json", "retained")
    assert [r["value"] for r in rows] == ["0", "1", "2", "3", "7", "8", "9"]
    assert ledger(cursor, raw_schema, "retained")[-1] == {
        "partition": 0, "gap_from": 4, "start_offset": 7, "end_offset": 10,
        "messages": 3, "lost_messages": 3,
    }  # fmt: skip


def test_offsets_that_go_back_fail_the_load(
    cursor: Any, kafka_broker: Broker, raw_schema: str
) -> None:
    """A topic deleted and made again starts its offsets anew: below what the ledger holds,
    which must stop the load, not land the new messages as if nothing happened."""
    kafka_broker.create_topic("recreated")
    kafka_broker.produce("recreated", [Message(str(n).encode()) for n in range(5)])
    source = KafkaSource(kafka_broker.bootstrap, topics=("recreated",))
    load_kafka(cursor, "canal_json", source)
    kafka_broker.delete_topic("recreated")
    kafka_broker.create_topic_when_deleted("recreated")
    kafka_broker.produce("recreated", [Message(b"new")])

    with pytest.raises(KafkaLoadError, match=r"recreated partition 0: .*offset 4 .* ends at 1"):
        load_kafka(cursor, "canal_json", source)
    assert len(landed(cursor, raw_schema, "canal_json", "recreated")) == 5


def test_every_format_from_kafka_builds_the_state_its_files_build(
    cursor: Any, kafka_broker: Broker, tmp_path: Any
) -> None:
    """Every format's bundled samples, produced to a topic and loaded with --kafka, give the
    current state the same messages give loaded from their files (Kafka's topic, offsets and
    times are the only difference between the two). A topic whose load lost messages to
    retention shows them in the sync progress."""
    schema, raw = "kafka_equal_models", "kafka_equal_raw"
    formats = sorted(path.name for path in SAMPLES.iterdir() if path.is_dir())
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", raw)
        patch.setenv("CDC_LAKE_SCHEMA", schema)
        patch.setenv("DBT_TARGET_PATH", str(tmp_path / "target"))
        from cdc_lake.loader import load_files

        for statement in bootstrap_statements():
            run(cursor, statement)
        for fmt in formats:
            assert fmt in FORMATS
            topic = f"samples.{fmt}"
            kafka_broker.create_topic(topic)
            kafka_broker.produce(topic, sample_messages(SAMPLES / fmt))
            load_files(cursor, fmt, [SAMPLES / fmt], source="files")
            load_kafka(cursor, fmt, KafkaSource(kafka_broker.bootstrap, (topic,)), "kafka")
        # Of five messages, the first is landed, then the next two are deleted unlanded.
        kafka_broker.create_topic("lossy")
        canal = sample_messages(SAMPLES / "canal_json")
        kafka_broker.produce("lossy", canal[:1])
        lossy = KafkaSource(kafka_broker.bootstrap, ("lossy",))
        load_kafka(cursor, "canal_json", lossy, "lossy")
        kafka_broker.produce("lossy", canal[1:5])
        deleted = kafka_broker.admin().delete_records([TopicPartition("lossy", 0, 3)])
        for future in deleted.values():
            future.result(30)
        load_kafka(cursor, "canal_json", lossy, "lossy", allow_data_loss=True)
        vars_args = ["--vars", json.dumps({"cdc_lake_formats": formats})]
        assert node_errors(run_dbt("seed", *vars_args)) == []
        result = run_dbt("run", "--select", "+cdc_current_state", "+cdc_sync_progress", *vars_args)
        assert node_errors(result) == []

    def state(source: str) -> list[tuple]:
        rows = query(
            cursor,
            f"""select substr(table_key, {len(source) + 2}) as table_key, primary_key,
                is_deleted, last_op, to_json(array_sort(map_entries(row_data))) as row_data
            from {schema}.cdc_current_state where table_key like '{source}/%'""",
        )
        return sorted(tuple(row.values()) for row in rows)

    from_files = state("files")
    assert from_files == state("kafka")
    tables = {row[0] for row in from_files}
    assert len(tables) >= len(formats), tables
    progress = query(
        cursor,
        f"""select kafka_topic, messages, lost_messages from {schema}.cdc_sync_progress
        where source_format = 'canal_json' and kafka_topic is not null""",
    )
    assert sorted(progress, key=repr) == sorted(
        [
            {"kafka_topic": "lossy", "messages": 3, "lost_messages": 2},
            {"kafka_topic": "samples.canal_json", "messages": 5, "lost_messages": 0},
        ],
        key=repr,
    )
