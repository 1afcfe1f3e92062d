"""End to end on Maxwell's daemon JSON (`maxwell_json`): landed messages -> dbt build -> tables.

The bundled sample (the first transaction of Flink's maxwell-data.txt), the fixtures of
fixtures/maxwell_json/ (bootstrap rows and markers, output_ddl schema changes, positions,
partial `old`, a key change, a transaction delivered backwards, an update delivered before
an earlier one, a duplicate, a table without key columns, bad messages) and the public
Maxwell sets of udfs/tests/public_samples/ (Flink's file as published; SeaTunnel's and two
Paimon scenarios with their `database` tagged, see support/public_landings.py), loaded before the
session's one build, are checked against the expectations of public_samples/EXPECTED.md.
The checks Maxwell shares with other formats (its nodes built, its bad messages, the duplicate,
Flink's and Paimon's sets' changelogs and states) are in test_formats.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import (
    format_change_log,
    format_current_state,
    format_live_rows,
    keyed_changes,
    query,
)
from support.public_landings import (
    product,
    require_public_samples,
)

pytestmark = pytest.mark.spark

MY_FORMATS = ("maxwell_json",)
MS = "yyyy-MM-dd HH:mm:ss.SSS"


def change_log(cursor: Any, table_key: str) -> list[dict[str, Any]]:
    """One table's changes in ordering_key order: the order every later model applies."""
    return format_change_log(
        cursor,
        MY_FORMATS,
        table_key,
        f"""date_format(source_ts, '{MS}') as source_ts, event_sequence, source_log_position,
            transaction_id""",
    )


# ---------------------------------------------------------------- public sets


def test_flink_maxwell_data_keys_and_positions(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Maxwell")
    rows = change_log(cursor, "test.product")
    # The file sends no primary_key_columns: every column, sorted by name, is the key.
    assert rows[0] == {
        "op": "insert",
        "source_op": "insert",
        "primary_key_columns": ["description", "id", "name", "weight"],
        "primary_key": ["Small 2-wheel scooter", "101", "scooter", "3.14"],
        "previous_primary_key": None,
        "before_row": None,
        "after_row": product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        "source_ts": "2020-08-06 03:34:43.000",
        "event_sequence": "0",
        "source_log_position": None,
        "transaction_id": "7125",
    }
    # The transaction's last row (commit: true) has no xoffset and sorts after the others.
    assert [row["event_sequence"] for row in rows[:9]] == [str(n) for n in range(8)] + [None]
    # A partial `old` is overlaid on `data` for the before-image; the whole-row key moves.
    assert rows[10]["previous_primary_key"] == ["box of assorted rocks", "107", "rocks", "5.3"]


def test_seatunnel_maxwell_data_with_key_columns(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Maxwell")
    rows = change_log(cursor, "seatunnel__test.product")
    assert {json.dumps(row["primary_key_columns"]) for row in rows} == {'["id"]'}
    assert all(row["previous_primary_key"] is None for row in rows)


def test_key_columns_from_the_var(pipeline_build: Any, cursor: Any, tmp_path: Path) -> None:
    # Flink's file sends no primary_key_columns; the var names the table's key.
    declared = {"maxwell_json_primary_keys": {"test.product": ["id"]}}
    rows = keyed_changes(cursor, "stg_maxwell__json", "test.product", declared, tmp_path)
    assert {row["primary_key_columns"] for row in rows} == {'["id"]'}
    # The compiled model is every staged row: the bundled sample's copies of the file's first
    # nine messages are there twice (later models keep first deliveries only).
    keys = [json.loads(row["primary_key"]) for row in rows]
    assert all(len(key) == 1 for key in keys)
    assert sorted({key[0] for key in keys}, key=int) == [str(n) for n in range(101, 112)]
    assert all(row["previous_primary_key"] is None for row in rows)


# ---------------------------------------------------------------- our fixtures


def test_fixture_orders_change_log(pipeline_build: Any, cursor: Any) -> None:
    rows = change_log(cursor, "mxw_shop.orders")
    assert [(row["op"], row["source_op"], row["primary_key"]) for row in rows] == [
        ("snapshot", "bootstrap-insert", ["1"]),
        ("snapshot", "bootstrap-insert", ["2"]),
        ("insert", "insert", ["3"]),  # delivered twice, one change
        ("update", "update", ["1"]),
        # delivered after the update it follows: the binlog position orders them
        ("update", "update", ["2"]),
        ("update", "update", ["2"]),
        ("delete", "delete", ["3"]),
        ("update", "update", ["20"]),
    ]
    assert [row["after_row"]["status"] for row in rows[4:6]] == ["paid", "shipped"]
    # A bootstrap row carries the position its bootstrap read at; ts is seconds.
    assert rows[0]["source_log_position"] == "mysql-bin.000003:300"
    assert rows[0]["source_ts"] == "2023-11-14 22:13:21.000"
    # `old: {"note": null}` means "was NULL"; numbers keep every digit sent.
    assert rows[3]["before_row"] == {"id": "1", "status": "new", "amount": "10.5", "note": None}
    assert rows[3]["after_row"]["note"] == "gift"
    assert rows[2]["after_row"]["amount"] == "12345678901234567890.123"
    assert (rows[2]["transaction_id"], rows[2]["event_sequence"]) == ("900", "0")
    # A key change: the before-image's key is the previous key; a JSON column is its text.
    assert rows[7]["previous_primary_key"] == ["2"]
    assert json.loads(rows[7]["after_row"]["tags"]) == {"gift": True, "n": [1, 2]}


def test_fixture_orders_current_state(pipeline_build: Any, cursor: Any) -> None:
    rows = format_current_state(cursor, MY_FORMATS, "table_key = 'mxw_shop.orders'")
    assert [(row["primary_key"], row["is_deleted"]) for row in rows if not row["is_deleted"]] == [
        (["1"], False),
        (["20"], False),
    ]
    assert {json.dumps(row["primary_key"]) for row in rows if row["is_deleted"]} >= {'["3"]'}
    live = {row["primary_key"][0]: row["row_data"] for row in rows if not row["is_deleted"]}
    assert live["1"] == {"id": "1", "status": "new", "amount": "10.5", "note": "gift"}
    assert live["20"]["status"] == "shipped"


def test_a_transaction_delivered_backwards_ends_at_its_commit_row(
    pipeline_build: Any, cursor: Any
) -> None:
    # xid 50 arrives commit row first, then xoffset 1, then xoffset 0: xoffset orders the
    # rows, and the commit row (which has no xoffset) is the transaction's last.
    rows = change_log(cursor, "mxw_shop.items")
    assert [(row["op"], row["after_row"]["qty"]) for row in rows] == [
        ("insert", "1"),
        ("update", "2"),
        ("update", "3"),
    ]
    assert format_live_rows(cursor, MY_FORMATS, "mxw_shop.items") == [{"sku": "a", "qty": "3"}]


def test_a_table_without_key_columns_is_keyed_by_the_whole_row(
    pipeline_build: Any, cursor: Any
) -> None:
    [row] = change_log(cursor, "mxw_shop.audit_log")
    assert row["primary_key_columns"] == ["at", "flags", "who"]
    # A SET column is a JSON array, kept as its text.
    assert row["primary_key"] == ["2023-11-14 22:13:50", '["a_val","c_val"]', "x"]


def test_ddl_messages_are_schema_changes(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select ddl_op, table_key, ddl_text, ddl_meta, date_format(source_ts, '{MS}') as source_ts
        from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format = 'maxwell_json' and startswith(table_key, 'mxw_shop')
        order by ordering_key""",
    )
    assert [(row["ddl_op"], row["table_key"]) for row in rows] == [
        ("table-create", "mxw_shop.orders"),
        ("table-alter", "mxw_shop.orders"),
        ("database-alter", "mxw_shop"),
    ]
    assert rows[0]["ddl_text"].startswith("create table orders (id int primary key")
    # `def` is kept as the structured DDL; the DDL's ts is milliseconds in Maxwell's example.
    assert json.loads(rows[0]["ddl_meta"])["primary-key"] == ["id"]
    assert rows[0]["source_ts"] == "2023-11-14 22:13:20.000"
    assert rows[2]["ddl_meta"] is None


def test_bootstrap_start_and_complete_are_markers(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select marker, source_log_position
        from cdc_lake_intermediate.int_cdc__transaction_markers
        where source_format = 'maxwell_json'
        order by ordering_key""",
    )
    assert [(row["marker"], row["source_log_position"]) for row in rows] == [
        ("bootstrap-start", "mysql-bin.000003:300"),
        ("bootstrap-complete", "mysql-bin.000003:300"),
    ]
