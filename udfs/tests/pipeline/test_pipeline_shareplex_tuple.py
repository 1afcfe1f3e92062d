"""End to end on DTS SharePlex JSON and DataHub Tuple: landed samples -> dbt build -> tables.

The bundled samples are the vendor documents' examples (seeds/samples/dts_shareplex_json/,
seeds/samples/datahub_tuple/); the fixtures add bad messages, partial updates folded into the
current state, UPDATE BEFORE / UPDATE AFTER pairs, a truncate, a DROP COLUMN, value types and
out-of-order delivery. The expected rows are worked out by hand from the documents. The nodes
built and the bad messages are checked with other formats' in test_formats.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import current_state, decode_json_columns, keyed_changes, query, state_row

pytestmark = pytest.mark.spark

CHANGE_LOG = "cdc_lake_intermediate.int_cdc__change_log"
MS = "yyyy-MM-dd HH:mm:ss.SSS"
SHAREPLEX = "dts_shareplex_json"
TUPLE = "datahub_tuple"
OUR_MODELS = ("stg_aliyun_dts__shareplex_json", "stg_datahub__tuple")

# fmt: off
# The document's SharePlex update: `key` is the row before, `data` the changed column.
MIO_KEY = {"MIO_LOG_ID": "32537893", "PLNMIO_REC_ID": "31557806", "POL_CODE": None,
           "CNTR_TYPE": None, "CNTR_NO": "1171201606syui26"}
MIO_KEY_COLUMNS = ["CNTR_NO", "CNTR_TYPE", "MIO_LOG_ID", "PLNMIO_REC_ID", "POL_CODE"]
MIO_DELETED = {"MIO_LOG_ID": "32539739", "PLNMIO_REC_ID": "31557806", "POL_CODE": None,
               "CNTR_TYPE": None, "CG_NO": None}
ORDER_NEW = {"ORDER_ID": "1", "STATUS": "NEW", "AMOUNT": "10.50"}
ORDER_PAID = {**ORDER_NEW, "STATUS": "PAID"}
LOG_1 = {"LOG_ID": "1", "OLD_COL": "x", "AMOUNT": "12345678901234567890.12"}
# fmt: on


def change(
    op: str,
    source_op: str,
    table_key: str,
    key_columns: list[str],
    key: list[str | None],
    before: dict | None,
    after: dict | None,
    source_ts: str | None,
    **extra: Any,
) -> dict[str, Any]:
    row = {
        "op": op,
        "source_op": source_op,
        "table_key": table_key,
        "primary_key_columns": key_columns,
        "primary_key": key,
        "previous_primary_key": None,
        "before_row": before,
        "after_row": after,
        "is_partial": False,
        "source_ts": source_ts,
        "sync_ts": None,
        "event_sequence": None,
        "source_log_position": None,
        "transaction_id": None,
    }
    row.update(extra)
    return row


def shareplex_meta(scn: str, trans: str, seq: int) -> dict[str, str]:
    return {
        "event_sequence": f"{scn}:{trans}:{seq}",
        "source_log_position": scn,
        "transaction_id": trans,
    }


# fmt: off
EXPECTED_SHAREPLEX_CHANGES = [
    # The document's update and delete elide meta's scn/trans/seq: they order by time alone.
    change("update", "upd", "cl_biz1.mio_log", MIO_KEY_COLUMNS,
           ["1171201606", None, "32537893", "31557806", None], MIO_KEY,
           {"CNTR_NO": "1171201606"}, "2017-06-16 15:38:13.000", is_partial=True,
           previous_primary_key=["1171201606syui26", None, "32537893", "31557806", None]),
    change("delete", "del", "cl_biz1.mio_log",
           ["CG_NO", "CNTR_TYPE", "MIO_LOG_ID", "PLNMIO_REC_ID", "POL_CODE"],
           [None, None, "32539739", "31557806", None], MIO_DELETED, None,
           "2017-06-16 15:51:35.000"),
    change("insert", "ins", "cl_biz1.mio_log", ["MIO_LOG_ID"], ["32539737"], None,
           {"MIO_LOG_ID": "32539737"}, "2017-06-16 14:24:34.000",
           sync_ts="2017-06-16 14:33:52.000",
           **shareplex_meta("14589063118712", "7.0.411499", 1)),
    # Two partial updates of one transaction, delivered seq 2 first: seq orders them.
    change("update", "upd", "fixture.accounts", ["ACCOUNT_ID"], ["5"], {"ACCOUNT_ID": "5"},
           {"OWNER_NAME": "Li", "BALANCE": "90.00"}, "2024-03-02 08:00:00.000",
           sync_ts="2024-03-02 08:00:03.000", is_partial=True,
           **shareplex_meta("300", "2.1.10", 1)),
    change("update", "upd", "fixture.accounts", ["ACCOUNT_ID"], ["5"], {"ACCOUNT_ID": "5"},
           {"BALANCE": "100.00"}, "2024-03-02 08:00:00.000",
           sync_ts="2024-03-02 08:00:03.000", is_partial=True,
           **shareplex_meta("300", "2.1.10", 2)),
    # UPDATE BEFORE (seq 1) + UPDATE AFTER (seq 2, with its key): one partial update.
    change("update", "UPDATE AFTER", "fixture.accounts", ["ACCOUNT_ID"], ["5"],
           {"ACCOUNT_ID": "5", "OWNER_NAME": "Li", "BALANCE": "100.00"},
           {"BALANCE": "80.00"}, "2024-03-02 09:00:00.000",
           sync_ts="2024-03-02 09:00:02.000", is_partial=True,
           **shareplex_meta("310", "2.2.11", 2)),
    change("insert", "INSERT", "fixture.logs", ["AMOUNT", "LOG_ID", "OLD_COL"],
           ["12345678901234567890.12", "1", "x"], None, LOG_1, "2024-03-03 12:00:00.000",
           **shareplex_meta("400", "3.1.20", 1)),
    change("truncate", "TRUNCATE", "fixture.logs", None, None, None, None,
           "2024-03-03 12:02:00.000", **shareplex_meta("410", "3.3.22", 1)),
    change("insert", "INSERT", "fixture.logs", ["AMOUNT", "LOG_ID"], ["7", "2"], None,
           {"LOG_ID": "2", "AMOUNT": "7"}, "2024-03-03 12:03:00.000",
           **shareplex_meta("420", "3.4.23", 1)),
    # UPDATE AFTER delivered before its UPDATE BEFORE, same seq, no key: whole-row identity.
    change("update", "UPDATE AFTER", "fixture.notes", ["BODY", "NOTE_ID"], ["b", "1"],
           {"NOTE_ID": "1", "BODY": "a"}, {"NOTE_ID": "1", "BODY": "b"},
           "2024-03-02 09:30:00.000", sync_ts="2024-03-02 09:30:01.000", is_partial=True,
           previous_primary_key=["a", "1"], **shareplex_meta("320", "2.3.12", 3)),
    # The insert is delivered twice: one row. Every column of `key` is the identity.
    change("insert", "ins", "fixture.orders", ["AMOUNT", "ORDER_ID", "STATUS"],
           ["10.50", "1", "NEW"], None, ORDER_NEW, "2024-03-01 10:00:00.000",
           sync_ts="2024-03-01 10:00:02.000", **shareplex_meta("200", "1.2.300", 1)),
    change("update", "upd", "fixture.orders", ["AMOUNT", "ORDER_ID", "STATUS"],
           ["10.50", "1", "PAID"], ORDER_NEW, {"STATUS": "PAID"}, "2024-03-01 10:05:00.000",
           sync_ts="2024-03-01 10:05:01.000", is_partial=True,
           previous_primary_key=["10.50", "1", "NEW"], **shareplex_meta("210", "1.3.301", 1)),
    change("delete", "del", "fixture.orders", ["AMOUNT", "ORDER_ID", "STATUS"],
           ["10.50", "1", "PAID"], ORDER_PAID, None, "2024-03-01 10:09:00.000",
           sync_ts="2024-03-01 10:09:01.000", **shareplex_meta("220", "1.4.302", 1)),
]

ALICE = {"id": "1", "name": "Alice"}
ALICE_CHEN = {"id": "1", "name": "Alice Chen"}
EXPECTED_TUPLE_CHANGES = [
    change("insert", "I", "fixture_db.sales.tuple_types",
           ["flag", "id", "note", "nothing", "price", "ts"],
           ["true", "12345678901234567890", '中文 "quoted"', None, "0.1000000000000000000001",
            "1649991726000123"], None,
           {"id": "12345678901234567890", "price": "0.1000000000000000000001", "flag": "true",
            "note": '中文 "quoted"', "ts": "1649991726000123", "nothing": None},
           "2022-04-15 03:02:06.123", event_sequence="100"),
    change("insert", "I", "fixture_db.tuple_keyed", ["id", "name"], ["1", "a"], None,
           {"id": "1", "name": "a"}, "2022-04-15 03:05:00.000", event_sequence="300"),
    change("update", "U", "fixture_db.tuple_keyed", ["id", "name"], ["1", "b"],
           {"id": "1", "name": "a"}, {"id": "1", "name": "b"}, "2022-04-15 03:05:10.000",
           event_sequence="301", previous_primary_key=["1", "a"]),
    # Loaded update first, insert second: _sequence_id_ orders them.
    change("insert", "I", "fixture_db.tuple_late", ["id", "name"], ["7", "a"], None,
           {"id": "7", "name": "a"}, "2022-04-15 03:03:10.000", event_sequence="210"),
    change("update", "U", "fixture_db.tuple_late", ["id", "name"], ["7", "b"],
           {"id": "7", "name": "a"}, {"id": "7", "name": "b"}, "2022-04-15 03:03:20.000",
           event_sequence="211", previous_primary_key=["7", "a"]),
    # The document's example table: I, U before + U after (one sequence id), D.
    change("insert", "I", "shop_db.t_user", ["id", "name"], ["1", "Alice"], None, ALICE,
           "2022-04-15 03:02:06.000", event_sequence="1649991610688000000"),
    change("update", "U", "shop_db.t_user", ["id", "name"], ["1", "Alice Chen"], ALICE,
           ALICE_CHEN, "2022-04-15 03:02:36.000", event_sequence="1649991610688000001",
           previous_primary_key=["1", "Alice"]),
    change("delete", "D", "shop_db.t_user", ["id", "name"], ["1", "Alice Chen"], ALICE_CHEN,
           None, "2022-04-15 03:02:54.000", event_sequence="1649991610688000002"),
]
# fmt: on

CHANGE_COLUMNS = f"""
    op, source_op, table_key, to_json(primary_key_columns) as primary_key_columns,
    primary_key, previous_primary_key, to_json(before_row) as before_row,
    to_json(after_row) as after_row, is_partial, date_format(source_ts, '{MS}') as source_ts,
    date_format(sync_ts, '{MS}') as sync_ts, event_sequence, source_log_position,
    transaction_id"""
JSON_COLUMNS = ("primary_key_columns", "primary_key", "previous_primary_key", "before_row")


def change_log(cursor: Any, source_format: str) -> list[dict[str, Any]]:
    rows = query(
        cursor,
        f"""
        select {CHANGE_COLUMNS}
        from {CHANGE_LOG}
        where source_format = '{source_format}'
        order by table_key, ordering_key""",
    )
    return decode_json_columns(rows, *JSON_COLUMNS, "after_row")


def touched_state(cursor: Any, source_format: str) -> list[dict[str, Any]]:
    """Current state of every table our format's messages touch."""
    return current_state(
        cursor,
        f"""table_key in (
            select table_key from {CHANGE_LOG} where source_format = '{source_format}'
        )""",
    )


def by_key(row: dict[str, Any]) -> tuple[str, str]:
    return row["table_key"], json.dumps(row["primary_key"])


def test_shareplex_change_log(pipeline_build: Any, cursor: Any) -> None:
    assert change_log(cursor, SHAREPLEX) == EXPECTED_SHAREPLEX_CHANGES


def test_tuple_change_log(pipeline_build: Any, cursor: Any) -> None:
    assert change_log(cursor, TUPLE) == EXPECTED_TUPLE_CHANGES


def test_shareplex_current_state_folds_partial_updates(pipeline_build: Any, cursor: Any) -> None:
    new_key = ["1171201606", None, "32537893", "31557806", None]
    old_key = ["1171201606syui26", None, "32537893", "31557806", None]
    rows = touched_state(cursor, SHAREPLEX)
    expected = [
        # The update changed a column of `key`: the row ends under the old key, and lives on
        # under the new one as its before image overlaid with the changed column.
        state_row(
            "cl_biz1.mio_log", new_key, False, "update", {**MIO_KEY, "CNTR_NO": "1171201606"}
        ),
        state_row("cl_biz1.mio_log", old_key, True, "update", MIO_KEY),
        state_row("cl_biz1.mio_log", ["32539737"], False, "insert", {"MIO_LOG_ID": "32539737"}),
        state_row(
            "cl_biz1.mio_log",
            [None, None, "32539739", "31557806", None],
            True,
            "delete",
            MIO_DELETED,
        ),
        # Three partial updates folded in SCN / seq order.
        state_row(
            "fixture.accounts",
            ["5"],
            False,
            "update",
            {"ACCOUNT_ID": "5", "OWNER_NAME": "Li", "BALANCE": "80.00"},
        ),
        state_row("fixture.logs", ["12345678901234567890.12", "1", "x"], True, "truncate", LOG_1),
        state_row("fixture.logs", ["7", "2"], False, "insert", {"LOG_ID": "2", "AMOUNT": "7"}),
        state_row("fixture.notes", ["a", "1"], True, "update", {"NOTE_ID": "1", "BODY": "a"}),
        state_row("fixture.notes", ["b", "1"], False, "update", {"NOTE_ID": "1", "BODY": "b"}),
        state_row("fixture.orders", ["10.50", "1", "NEW"], True, "update", ORDER_NEW),
        state_row("fixture.orders", ["10.50", "1", "PAID"], True, "delete", ORDER_PAID),
    ]
    assert sorted(rows, key=by_key) == sorted(expected, key=by_key)


def test_tuple_current_state(pipeline_build: Any, cursor: Any) -> None:
    expected = [
        state_row(
            "fixture_db.sales.tuple_types",
            [
                "true",
                "12345678901234567890",
                '中文 "quoted"',
                None,
                "0.1000000000000000000001",
                "1649991726000123",
            ],
            False,
            "insert",
            EXPECTED_TUPLE_CHANGES[0]["after_row"],
        ),
        state_row("fixture_db.tuple_keyed", ["1", "a"], True, "update", {"id": "1", "name": "a"}),
        state_row("fixture_db.tuple_keyed", ["1", "b"], False, "update", {"id": "1", "name": "b"}),
        state_row("fixture_db.tuple_late", ["7", "a"], True, "update", {"id": "7", "name": "a"}),
        state_row("fixture_db.tuple_late", ["7", "b"], False, "update", {"id": "7", "name": "b"}),
        state_row("shop_db.t_user", ["1", "Alice"], True, "update", ALICE),
        state_row("shop_db.t_user", ["1", "Alice Chen"], True, "delete", ALICE_CHEN),
    ]
    assert sorted(touched_state(cursor, TUPLE), key=by_key) == sorted(expected, key=by_key)


def test_table_names_split_from_one_field(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select distinct db_type, database_name, schema_name, table_name, table_key
        from {CHANGE_LOG}
        where table_key in ('cl_biz1.mio_log', 'fixture_db.sales.tuple_types')
        order by table_key""",
    )
    assert rows == [
        {
            "db_type": "oracle",
            "database_name": None,
            "schema_name": "CL_BIZ1",
            "table_name": "MIO_LOG",
            "table_key": "cl_biz1.mio_log",
        },
        {
            "db_type": None,
            "database_name": "fixture_db",
            "schema_name": "sales",
            "table_name": "tuple_types",
            "table_key": "fixture_db.sales.tuple_types",
        },
    ]


def test_shareplex_schema_changes(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select ddl_op, table_key, ddl_text, ddl_meta, event_sequence,
            date_format(source_ts, '{MS}') as source_ts
        from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format = '{SHAREPLEX}'
        order by ordering_key""",
    )
    assert rows == [
        {
            "ddl_op": "drop column",
            "table_key": "fixture.logs",
            "ddl_text": "DROP COLUMN OLD_COL",
            "ddl_meta": None,
            "event_sequence": "405:3.2.21:1",
            "source_ts": "2024-03-03 12:01:00.000",
        },
        {
            "ddl_op": "truncate",
            "table_key": "fixture.logs",
            "ddl_text": None,
            "ddl_meta": None,
            "event_sequence": "410:3.3.22:1",
            "source_ts": "2024-03-03 12:02:00.000",
        },
    ]


def test_key_columns_declared_per_table_by_vars(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """The vars name a table's key columns: every change of a row then keeps one identity."""
    declared = {
        "datahub_tuple_primary_keys": {"fixture_db.tuple_keyed": ["id"]},
        "dts_shareplex_primary_keys": {"FIXTURE.ORDERS": ["ORDER_ID"]},
    }
    keys = {
        model: keyed_changes(cursor, model, table_key, declared, tmp_path / model)
        for model, table_key in zip(
            OUR_MODELS, ("fixture.orders", "fixture_db.tuple_keyed"), strict=True
        )
    }
    assert keys == {
        "stg_aliyun_dts__shareplex_json": [
            {"op": op, "primary_key_columns": '["ORDER_ID"]', "primary_key": '["1"]',
             "previous_primary_key": None}
            for op in ("insert", "insert", "update", "delete")  # the insert was sent twice
        ],
        "stg_datahub__tuple": [
            {"op": op, "primary_key_columns": '["id"]', "primary_key": '["1"]',
             "previous_primary_key": None}
            for op in ("insert", "update")
        ],
    }  # fmt: skip
