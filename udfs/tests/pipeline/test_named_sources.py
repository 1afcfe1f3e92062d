"""Two sources with the same table names stay two tables.

The session loads udfs/tests/named_sources/: Canal messages of `two_sources.customers` from
`mysql-east` and `mysql-west` (whose TRUNCATE must not end east's rows), and east's file
again as `mysql-copy`. Debezium names its source in every message (`source.name`): that name
is used where the load named none, unless `cdc_lake_source_from_message` is false. A
Debezium message that names no table is named by its Kafka topic, given to a file's load as
`--topic`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import query, staged_with_vars
from support.project import NAMED_SOURCES

from cdc_lake.client import run
from cdc_lake.loader import load_files

pytestmark = pytest.mark.spark

CURRENT_STATE = "cdc_lake.cdc_current_state"


def customers(cursor: Any, table_key_like: str) -> list[dict[str, Any]]:
    """Each current row of the tables whose keys are like the pattern, with its name."""
    return query(
        cursor,
        f"""
        select table_key, primary_key, is_deleted, row_data['name'] as name
        from {CURRENT_STATE}
        where table_key like '{table_key_like}'
        order by table_key, primary_key""",
    )


def test_each_source_keeps_its_own_rows(pipeline_build: Any, cursor: Any) -> None:
    rows = customers(cursor, "%two_sources.customers")
    assert rows == [
        {"table_key": f"{source}/two_sources.customers", **row}
        for source, row in [
            ("mysql-copy", {"primary_key": '["1"]', "is_deleted": False, "name": "east one"}),
            ("mysql-copy", {"primary_key": '["2"]', "is_deleted": False, "name": "east two"}),
            ("mysql-east", {"primary_key": '["1"]', "is_deleted": False, "name": "east one"}),
            ("mysql-east", {"primary_key": '["2"]', "is_deleted": False, "name": "east two"}),
            # West's truncate ended west's key 1, not east's.
            ("mysql-west", {"primary_key": '["1"]', "is_deleted": True, "name": "west one"}),
            ("mysql-west", {"primary_key": '["3"]', "is_deleted": False, "name": "west three"}),
        ]
    ]


def test_the_same_message_from_two_sources_is_two_events(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select table_key, count(distinct event_id) as events
        from cdc_lake_intermediate.int_cdc__change_log
        where table_key in (
            'mysql-east/two_sources.customers', 'mysql-copy/two_sources.customers'
        )
        group by table_key order by table_key""",
    )
    assert [row["events"] for row in rows] == [2, 2]
    ids = query(
        cursor,
        """
        select count(distinct event_id) as ids from cdc_lake_intermediate.int_cdc__change_log
        where table_key like 'mysql-%/two_sources.customers'""",
    )
    assert ids == [{"ids": 2 + 2 + 3}]


def test_a_file_is_loaded_once_per_source(pipeline_build: Any, cursor: Any, tmp_path: Path) -> None:
    east = NAMED_SOURCES / "mysql-east" / "canal_json"
    assert [
        result.skipped for result in load_files(cursor, "canal_json", [east], source="mysql-east")
    ] == [True]
    registry = query(
        cursor,
        """
        select source_name, count(*) as loads from cdc_raw.loaded_files
        where source_file like '%named_sources/mysql-east/canal_json/customers.jsonl'
        group by source_name order by source_name""",
    )
    assert registry == [
        {"source_name": "mysql-copy", "loads": 1},
        {"source_name": "mysql-east", "loads": 1},
    ]


def test_two_debezium_connectors_of_one_table_never_mix(pipeline_build: Any, cursor: Any) -> None:
    """fixtures/debezium_json/11_two_connectors_one_table.kcat.jsonl, loaded without
    `--source`: connectors `inventory-east` and `inventory-west` both capture
    `inventory.customers`, and west's TRUNCATE (after east's inserts) ends west's rows only."""
    rows = customers(cursor, "inventory-%/inventory.customers")
    assert rows == [
        {"table_key": f"{source}/inventory.customers", **row}
        for source, row in [
            ("inventory-east", {"primary_key": '["1"]', "is_deleted": False, "name": "east one"}),
            ("inventory-east", {"primary_key": '["2"]', "is_deleted": False, "name": "east two"}),
            ("inventory-west", {"primary_key": '["1"]', "is_deleted": True, "name": "west one"}),
            ("inventory-west", {"primary_key": '["3"]', "is_deleted": True, "name": "west three"}),
        ]
    ]


def staged_debezium(
    cursor: Any, project_vars: dict[str, Any], target_path: Path
) -> list[dict[str, Any]]:
    """table_key, event kind and reason of the Debezium messages with a source name, as
    staging stages them with `project_vars` (compiled, not written)."""
    return query(
        cursor,
        f"""
        select distinct table_key, event_kind, rejection_reason
        from ({staged_with_vars("stg_debezium__json", project_vars, target_path)}) as staged
        where database_name in ('inventory', 'named')
        order by table_key""",
    )


def test_debezium_source_names_come_from_the_messages_unless_turned_off(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    reason = 'source name is not 1 to 64 letters, digits, ".", "_" or "-"'
    change = {"event_kind": "change", "rejection_reason": None}
    assert staged_debezium(cursor, {}, tmp_path / "default") == [
        {"table_key": "dbserver1/inventory.products", **change},
        {
            "table_key": "east coast/1/named.bad_source",
            "event_kind": "rejected",
            "rejection_reason": reason,
        },
        {"table_key": "inventory-east/inventory.customers", **change},
        {"table_key": "inventory-west/inventory.customers", **change},
        {"table_key": "mysql.east-1/named.good_source", **change},
    ]
    # Bare keys for a deployment of one source: both connectors' rows are one table again.
    turned_off = {"cdc_lake_source_from_message": False}
    assert staged_debezium(cursor, turned_off, tmp_path / "off") == [
        {"table_key": "inventory.customers", **change},
        {"table_key": "inventory.products", **change},
        {"table_key": "named.bad_source", **change},
        {"table_key": "named.good_source", **change},
    ]


# Flink's debezium-json writer sends only before, after and op: the topic names the table.
TOPIC_NAMED = [
    {"before": None, "after": {"id": 1, "name": "one"}, "op": "c"},
    {"before": {"id": 1, "name": "one"}, "after": {"id": 1, "name": "uno"}, "op": "u"},
]
NO_TABLE = "c without a table (in source, the envelope schema or the topic)"


def written_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_a_debezium_file_is_named_by_the_topic_it_is_loaded_with(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """`cdc-lake load --topic`: messages without a table in them land under the topic's
    `<topic.prefix>.<schema>.<table>`, the prefix as their source unless the load names one
    or sources from messages are off; a kcat envelope's own topic wins over the given one;
    with no topic they are still rejected, saying why."""
    flink = written_lines(tmp_path / "flink.jsonl", [json.dumps(m) for m in TOPIC_NAMED])
    bare = written_lines(tmp_path / "bare.jsonl", [json.dumps({"after": {"id": 7}, "op": "c"})])
    envelope = {"topic": "server9.shop.orders", "partition": 0, "offset": 5, "key": None}
    kcat = written_lines(
        tmp_path / "kcat.jsonl",
        [json.dumps({**envelope, "payload": json.dumps(TOPIC_NAMED[0])})],
    )
    topic = "dbserver1.inventory.customers"
    run(cursor, "drop database if exists cdc_raw_topics cascade")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", "cdc_raw_topics")
        load_files(cursor, "debezium_json", [flink], topic=topic)
        load_files(cursor, "debezium_json", [flink], source="mine", topic=topic)
        load_files(cursor, "debezium_json", [bare])
        load_files(cursor, "debezium_json", [kcat], topic="other.db.table")

        def staged(project_vars: dict[str, Any], folder: str) -> list[dict[str, Any]]:
            return query(
                cursor,
                f"""
                select kafka_topic, schema_name, table_name, table_key, event_kind,
                    rejection_reason, count(*) as messages
                from ({staged_with_vars("stg_debezium__json", project_vars, tmp_path / folder)})
                    as staged
                group by all
                order by table_key""",
            )

        default = staged({}, "default")
        turned_off = staged({"cdc_lake_source_from_message": False}, "off")
    run(cursor, "drop database cdc_raw_topics cascade")
    change = {"event_kind": "change", "rejection_reason": None}
    customers = {"kafka_topic": topic, "schema_name": "inventory", "table_name": "customers"}
    customers |= {**change, "messages": 2}
    orders = {"kafka_topic": "server9.shop.orders", "schema_name": "shop", "table_name": "orders"}
    orders |= {**change, "messages": 1}
    unnamed = {"kafka_topic": None, "schema_name": None, "table_name": None, "table_key": ""}
    unnamed |= {"event_kind": "rejected", "rejection_reason": NO_TABLE, "messages": 1}
    assert default == [
        unnamed,
        {**customers, "table_key": "dbserver1/inventory.customers"},
        {**customers, "table_key": "mine/inventory.customers"},
        {**orders, "table_key": "server9/shop.orders"},
    ]
    assert turned_off == [
        unnamed,
        {**customers, "table_key": "inventory.customers"},
        {**customers, "table_key": "mine/inventory.customers"},
        {**orders, "table_key": "shop.orders"},
    ]


def test_a_landing_table_made_before_source_names_is_upgraded_in_place(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """A deployment's landing table from an earlier version has no `source_name`: the next
    load adds the column and keeps the rows already landed."""
    run(cursor, "create database if not exists cdc_raw_old")
    table = "cdc_raw_old.canal_json"
    run(cursor, f"drop table if exists {table}")
    run(
        cursor,
        f"""create table {table} (value string, kafka_topic string, kafka_partition int,
        kafka_offset bigint, kafka_key string, kafka_timestamp timestamp, source_file string,
        source_position bigint, loaded_at timestamp) using parquet partitioned by (loaded_at)""",
    )
    run(cursor, f"insert into {table} select '{{}}', null, null, null, null, null, 'old', 0, now()")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", "cdc_raw_old")
        load_files(cursor, "canal_json", [NAMED_SOURCES / "mysql-west"], source="mysql-west")
    rows = query(
        cursor, f"select source_name, count(*) as n from {table} group by 1 order by 1 nulls first"
    )
    assert rows == [{"source_name": None, "n": 1}, {"source_name": "mysql-west", "n": 3}]
    run(cursor, "drop database cdc_raw_old cascade")
