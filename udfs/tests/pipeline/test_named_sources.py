"""Two sources with the same table names stay two tables.

The session loads udfs/tests/named_sources/: Canal messages of `two_sources.customers` from
`mysql-east` and `mysql-west` (whose TRUNCATE must not end east's rows), and east's file
again as `mysql-copy`. Debezium names its source in every message (`source.name`); with
`cdc_lake_source_from_message` that name is used where the load named none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.pipeline import query, staged_with_vars
from support.project import NAMED_SOURCES

from cdc_lake.client import run
from cdc_lake.loader import load_files

pytestmark = pytest.mark.spark

CURRENT_STATE = "cdc_lake.cdc_current_state"


def test_each_source_keeps_its_own_rows(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select table_key, primary_key, is_deleted, row_data['name'] as name
        from {CURRENT_STATE}
        where table_key like '%two_sources.customers'
        order by table_key, primary_key""",
    )
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


def staged_debezium(cursor: Any, from_message: bool, target_path: Path) -> list[dict[str, Any]]:
    """table_key, event kind and reason of the Debezium messages with a source name, as
    staging stages them with `cdc_lake_source_from_message` set (compiled, not written)."""
    project_vars = {"cdc_lake_source_from_message": from_message}
    return query(
        cursor,
        f"""
        select distinct table_key, event_kind, rejection_reason
        from ({staged_with_vars("stg_debezium__json", project_vars, target_path)}) as staged
        where database_name in ('inventory', 'named')
        order by table_key""",
    )


def test_debezium_source_names_come_from_the_messages_when_asked(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    reason = 'source name is not 1 to 64 letters, digits, ".", "_" or "-"'
    assert staged_debezium(cursor, True, tmp_path / "from-message") == [
        {
            "table_key": "dbserver1/inventory.products",
            "event_kind": "change",
            "rejection_reason": None,
        },
        {
            "table_key": "east coast/1/named.bad_source",
            "event_kind": "rejected",
            "rejection_reason": reason,
        },
        {
            "table_key": "mysql.east-1/named.good_source",
            "event_kind": "change",
            "rejection_reason": None,
        },
    ]
    assert staged_debezium(cursor, False, tmp_path / "default") == [
        {"table_key": "inventory.products", "event_kind": "change", "rejection_reason": None},
        {"table_key": "named.bad_source", "event_kind": "change", "rejection_reason": None},
        {"table_key": "named.good_source", "event_kind": "change", "rejection_reason": None},
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
