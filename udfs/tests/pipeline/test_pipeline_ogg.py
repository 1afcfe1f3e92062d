"""End to end on Oracle GoldenGate JSON (`ogg_json`): landed messages -> dbt build -> tables.

The bundled sample (the first eleven messages of Flink's ogg-data.txt), the fixtures of
fixtures/ogg_json/ (compressed updates with and without `before`, `_isMissing` flags, an
update delivered after a later one with a later `op_ts`, a re-formatted duplicate, a
primary-key update, a catalog-qualified table and its truncate, a table without
`primary_keys`, bad messages) and the public GoldenGate sets of udfs/tests/public_samples/
(Flink's file as published and unnamed; SeaTunnel's and every Paimon scenario as a source
`ogg_<tag>` of its own, see support/public_landings.py), loaded before the session's one build, are
checked against the expectations of public_samples/EXPECTED.md (sections 4 and 5; the Paimon
sets EXPECTED.md gives no state for are checked against its replay rule). The checks
GoldenGate shares with other formats (its nodes built, its bad messages, Flink's and Paimon's
sets' changelogs and states) are in test_formats.py.
"""

from __future__ import annotations

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
from support.public_landings import product, require_public_samples

pytestmark = pytest.mark.spark

MY_FORMATS = ("ogg_json",)
STAGING = "cdc_lake_staging.stg_ogg__json"
MS = "yyyy-MM-dd HH:mm:ss.SSS"


def change_log(cursor: Any, table_key: str) -> list[dict[str, Any]]:
    """One table's changes in ordering_key order: the order every later model applies."""
    return format_change_log(
        cursor,
        MY_FORMATS,
        table_key,
        f"""is_partial, database_name, schema_name, table_name,
            date_format(source_ts, '{MS}') as source_ts, date_format(sync_ts, '{MS}') as sync_ts,
            event_sequence, source_log_position""",
    )


# ---------------------------------------------------------------- public sets


def test_flink_ogg_data_metadata_and_partial_updates(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("GoldenGate")
    rows = change_log(cursor, "ogg.tbl_test")
    # Line 1's metadata as Flink's test reads it: table OGG.TBL_TEST, primary_keys [id],
    # current_ts 1589377175766 ms, op_ts 1589384406000 ms (both UTC).
    first = rows[0]
    assert (first["schema_name"], first["table_name"], first["database_name"]) == (
        "OGG",
        "TBL_TEST",
        None,
    )
    assert first["primary_key_columns"] == ["id"]
    assert (first["source_ts"], first["sync_ts"]) == (
        "2020-05-13 15:40:06.000",
        "2020-05-13 13:39:35.766",
    )
    assert first["event_sequence"] == first["source_log_position"] == "00000000000000000000143"
    # Every update is partial (compressed updates cannot be told apart); full images fold to
    # the same rows.
    assert {row["is_partial"] for row in rows if row["op"] == "update"} == {True}
    assert all(row["previous_primary_key"] is None for row in rows)


def test_pos_orders_where_op_ts_goes_backwards(pipeline_build: Any, cursor: Any) -> None:
    # pos ...157 has an earlier op_ts (17:32:10.904) than ...156 (17:32:20.327): pos orders.
    rows = change_log(cursor, "ogg.tbl_test")
    updates = [(row["primary_key"], row["source_ts"]) for row in rows if row["op"] == "update"]
    assert updates[-2:] == [
        (["110"], "2020-05-13 17:32:20.327"),
        (["111"], "2020-05-13 17:32:10.904"),
    ]


def test_paimon_table_schema_evolution_in_pos_order(pipeline_build: Any, cursor: Any) -> None:
    # File 3 is out of pos order (147, 158, 152, 149): pos orders it (its final state is
    # checked in test_formats.py).
    require_public_samples("GoldenGate")
    rows = change_log(cursor, "ogg_paimon_table_schemaevolution/ogg.tbl_test")
    assert [row["event_sequence"][-3:] for row in rows] == [
        "143", "144", "145", "146", "147", "149", "152", "158",
    ]  # fmt: skip


def test_paimon_table_sets_by_the_replay_rule(pipeline_build: Any, cursor: Any) -> None:
    # No state in EXPECTED.md: its replay rule (insert and update upsert, delete removes).
    require_public_samples("GoldenGate")
    assert format_live_rows(cursor, MY_FORMATS, "ogg_paimon_table_event/ogg.event") == [
        product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        product("102", "car battery", "12V car battery", "8.1"),
    ]
    assert [row["op"] for row in change_log(cursor, "ogg_paimon_table_event/ogg.event")] == [
        "insert", "insert", "insert", "update", "delete",
    ]  # fmt: skip
    startup = format_live_rows(cursor, MY_FORMATS, "ogg_paimon_table_startupmode/ogg.tbl_test")
    assert [row["id"] for row in startup] == ["101", "102", "103", "104"]
    assert format_live_rows(cursor, MY_FORMATS, "ogg_paimon_table_watermark/ogg.tbl_test") == [
        product("101", "scooter", "Small 2-wheel scooter", "3.140000104904175"),
        product("102", "car battery", "12V car battery", "8.100000381469727"),
    ]
    for tag in ("computedcolumn", "metadatacolumn"):
        rows = format_current_state(
            cursor, MY_FORMATS, f"table_key = 'ogg_paimon_table_{tag}/ogg.tbl_test'"
        )
        assert [(row["primary_key"], row["row_data"]) for row in rows] == [
            (["101"], {"_id": "101", "_date": "2023-03-23"})
        ]


def test_paimon_database_sets_by_the_replay_rule(pipeline_build: Any, cursor: Any) -> None:
    # Files re-insert keys at the pos they had (a second delivery with new columns): the
    # later line of the topic wins the tie.
    require_public_samples("GoldenGate")
    affix = "ogg_paimon_database_prefixsuffix/paimon_sync_database_affix"
    assert format_live_rows(cursor, MY_FORMATS, f"{affix}.t1") == [
        product("101", "scooter", "Small 2-wheel scooter", "3.14", address="Beijing"),
        product("102", "car battery", "12V car battery", "8.1", address="Shanghai"),
    ]
    assert [row["id"] for row in format_live_rows(cursor, MY_FORMATS, f"{affix}.t2")] == [
        "103",
        "104",
    ]
    plain = "ogg_paimon_database_prefixsuffix/paimon_sync_database.t2"
    assert [row.get("age") for row in format_live_rows(cursor, MY_FORMATS, plain)] == ["19", "25"]
    include = "ogg_paimon_database_include/paimon_sync_database_affix"
    assert {
        table: [row["id"] for row in format_live_rows(cursor, MY_FORMATS, f"{include}.{table}")]
        for table in ("paimon_1", "paimon_2", "ignore", "flink")
    } == {"paimon_1": ["101"], "paimon_2": ["102"], "ignore": ["103"], "flink": ["104"]}


def test_a_key_named_in_another_case_is_rejected(pipeline_build: Any, cursor: Any) -> None:
    # Paimon's case-insensitive file: the second message's primary_keys [id] names no column
    # of its row (ID): rejected with the reason; the first is staged.
    require_public_samples("GoldenGate")
    table_key = "ogg_paimon_database_case_insensitive/paimon_sync_database.t1"
    assert [row["ID"] for row in format_live_rows(cursor, MY_FORMATS, table_key)] == ["101"]
    rows = query(
        cursor,
        """
        select rejection_reason from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format = 'ogg_json' and source_file like '%ogg_paimon_database_case%'""",
    )
    assert rows == [{"rejection_reason": "no value for primary key column(s) id in the row image"}]


def test_key_columns_from_the_var(pipeline_build: Any, cursor: Any, tmp_path: Path) -> None:
    # The fixture's audit table sends no primary_keys: the var names its key.
    declared = {"ogg_json_primary_keys": {"ogg_shop.audit_log": ["AT"]}}
    rows = keyed_changes(cursor, "stg_ogg__json", "ogg_shop.audit_log", declared, tmp_path)
    assert [(row["primary_key_columns"], row["primary_key"]) for row in rows] == [
        ('["AT"]', '["2023-11-14 22:18:00"]')
    ]


# ---------------------------------------------------------------- our fixtures


def test_fixture_orders_change_log(pipeline_build: Any, cursor: Any) -> None:
    rows = change_log(cursor, "ogg_shop.orders")
    assert [(row["op"], row["primary_key"], row["previous_primary_key"]) for row in rows] == [
        ("insert", ["1"], None),  # delivered twice (formatted again: a new current_ts), one change
        ("insert", ["2"], None),
        ("update", ["1"], None),
        # delivered after a later update, with a later op_ts: the trail position orders it,
        # also across trail files (sequence 1 before 2)
        ("update", ["2"], None),
        ("update", ["2"], None),
        ("update", ["10"], ["1"]),  # a primary-key update
        ("delete", ["2"], None),
    ]
    assert [row["after_row"]["STATUS"] for row in rows[3:5]] == ["paid", "shipped"]
    # A compressed update: only the key and the changed column; partial.
    assert (rows[2]["before_row"], rows[2]["after_row"], rows[2]["is_partial"]) == (
        None,
        {"ID": "1", "STATUS": "paid"},
        True,
    )
    # `_isMissing` flags: a missing column is left out, the flags are no columns.
    assert rows[4]["before_row"] == {"ID": "2", "STATUS": "paid"}
    assert rows[4]["after_row"] == {"ID": "2", "STATUS": "shipped"}
    # Numbers keep every digit sent; a deleted row's compressed before is its key.
    assert rows[0]["after_row"] == {"ID": "1", "STATUS": "new", "AMOUNT": "10.50", "NOTE": None}
    assert rows[1]["after_row"]["AMOUNT"] == "12345678901234567890.123"
    assert rows[6]["before_row"] == {"ID": "2"}
    assert (rows[0]["source_ts"], rows[0]["sync_ts"]) == (
        "2023-11-14 22:13:20.000",
        "2023-11-14 22:13:25.100",
    )


def test_fixture_orders_current_state(pipeline_build: Any, cursor: Any) -> None:
    rows = format_current_state(cursor, MY_FORMATS, "table_key = 'ogg_shop.orders'")
    live = {row["primary_key"][0]: row["row_data"] for row in rows if not row["is_deleted"]}
    # The partial updates folded onto the rows as they were; the key moved from 1 to 10.
    assert live == {"10": {"ID": "10", "STATUS": "paid", "AMOUNT": "10.50", "NOTE": "gift"}}
    deleted = {row["primary_key"][0]: row["last_op"] for row in rows if row["is_deleted"]}
    assert deleted == {"1": "update", "2": "delete"}


def test_the_reformatted_duplicate_is_one_event(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select is_first_delivery, sync_ts from {STAGING}
        where table_key = 'ogg_shop.orders' and op = 'insert' and primary_key = '["1"]'
        order by source_position""",
    )
    assert [row["is_first_delivery"] for row in rows] == [True, False]


def test_a_catalog_qualified_table_and_its_truncate(pipeline_build: Any, cursor: Any) -> None:
    rows = change_log(cursor, "pdb1.ogg_shop.items")
    assert [(row["op"], row["primary_key"]) for row in rows] == [
        ("insert", ["a"]),
        ("insert", ["b"]),
        ("truncate", None),
        ("insert", ["c"]),
    ]
    assert (rows[0]["database_name"], rows[0]["schema_name"], rows[0]["table_name"]) == (
        "PDB1",
        "OGG_SHOP",
        "ITEMS",
    )
    assert rows[2]["primary_key_columns"] is None
    assert format_live_rows(cursor, MY_FORMATS, "pdb1.ogg_shop.items") == [{"SKU": "c", "QTY": "3"}]
    state = format_current_state(
        cursor, MY_FORMATS, "table_key = 'pdb1.ogg_shop.items' and is_deleted"
    )
    assert [(row["primary_key"], row["last_op"]) for row in state] == [
        (["a"], "truncate"),
        (["b"], "truncate"),
    ]


def test_a_table_without_primary_keys_is_keyed_by_the_whole_row(
    pipeline_build: Any, cursor: Any
) -> None:
    [row] = change_log(cursor, "ogg_shop.audit_log")
    assert row["primary_key_columns"] == ["AT", "N", "WHO"]
    assert row["primary_key"] == ["2023-11-14 22:18:00", "1.0", "x"]
