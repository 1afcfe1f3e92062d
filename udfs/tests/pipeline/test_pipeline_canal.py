"""End to end on Canal JSON and DTS Canal JSON: landed messages -> dbt build -> tables.

`canal_json`: the bundled sample (the first messages of Flink's canal-data.txt), the fixtures
(value types, a key change, a table without a key, out-of-order delivery, a truncate, a
duplicate, bad messages, Flink CDC's canal-json writer, numbers as sent) and the public
Canal samples of udfs/tests/public_samples/ (Flink, Flink with INIT rows, SeaTunnel, every
Paimon Canal file), loaded before the one build.
`dts_canal_json`: every example of the DTS document's Canal part (seeds/samples/) and a
current-layout fixture; the legacy layout is covered by the dbt unit tests of
`_aliyun_dts__canal_json_unit_tests.yml`, which run inside the same build.

The public files are loaded as Kafka would deliver them: Paimon's license comment lines are
left out (its tests skip them too), each scenario's files are concatenated in topic order,
and every set except Flink's canal-data.txt gets its `database` prefixed with a tag, because
the sets reuse the same tables with contradicting contents. canal-data.txt stays untouched
(`inventory.products2`), like the bundled sample that is its first five lines. The checks
Canal shares with other formats (its nodes built, Flink's and SeaTunnel's `products`
changelog and states) are in test_formats.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import (
    change_log_rows,
    decode_json_columns,
    format_change_log,
    format_current_state,
    keyed_changes,
    query,
    staged_with_vars,
)
from support.project import PROJECT_ROOT
from support.public_landings import (
    FLINK_CANAL_DATA,
    FLINK_PRODUCTS_CHANGELOG,
    FLINK_PRODUCTS_FINAL_STATE,
    PUBLIC,
    as_flink_changelog,
    canal_sets,
    message_lines,
    product,
    require_public_samples,
    tagged,
)

pytestmark = pytest.mark.spark

MY_FORMATS = ("canal_json", "dts_canal_json")
MY_FORMATS_SQL = "('canal_json', 'dts_canal_json')"
MS = "yyyy-MM-dd HH:mm:ss.SSS"


def current_state(cursor: Any, table_filter: str) -> list[dict[str, Any]]:
    return format_current_state(cursor, MY_FORMATS, table_filter)


def live_rows(cursor: Any, table_key: str) -> list[dict[str, Any]]:
    rows = current_state(cursor, f"table_key = '{table_key}' and not is_deleted")
    return [row["row_data"] for row in rows]


# ---------------------------------------------------------------- the build


def test_a_unit_tests_temporary_view_is_replaced_not_dropped(
    pipeline_build: Any, cursor: Any
) -> None:
    """The unit test leaves a one-row view behind (macro spark__drop_relation): had it dropped
    its view while another connection of the shared session closed, that close would fail,
    and dbt the model whose connection it was."""
    views = {row["viewName"]: row for row in query(cursor, "show views")}
    assert views["dts_canal_json_legacy_layout__dbt_tmp"]["isTemporary"]
    rows = query(cursor, "select * from dts_canal_json_legacy_layout__dbt_tmp")
    assert rows == [{"placeholder": 1}]


# ---------------------------------------------------------------- Flink canal-data.txt


def strip_other(image: dict[str, str | None] | None) -> dict[str, str | None] | None:
    """The row without Flink's extra column `other` (canal-data-with-init.txt)."""
    return None if image is None else {k: v for k, v in image.items() if k != "other"}


def change_log(cursor: Any, table_key: str) -> list[dict[str, Any]]:
    return format_change_log(
        cursor,
        MY_FORMATS,
        table_key,
        f"""to_json(column_types) as column_types,
            date_format(source_ts, '{MS}') as source_ts, date_format(sync_ts, '{MS}') as sync_ts,
            event_sequence, transaction_id, row_index, is_partial""",
        json_columns=("column_types",),
    )


def test_flink_canal_data_first_rows_are_the_bundled_samples(
    pipeline_build: Any, cursor: Any
) -> None:
    require_public_samples("Canal")
    rows = change_log(cursor, "inventory.products2")
    # The first rows come from the bundled sample (the file's first five messages): the
    # multi-row INSERT is one change per row, with row_index, and the partial `old` of the
    # first UPDATE is overlaid on `data` for the before-image.
    types = {"id": "INTEGER", "name": "VARCHAR(255)", "description": "VARCHAR(512)"}
    types["weight"] = "FLOAT"
    assert rows[0] == {
        "op": "insert",
        "source_op": "INSERT",
        "primary_key_columns": ["id"],
        "primary_key": ["101"],
        "previous_primary_key": None,
        "before_row": None,
        "after_row": product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        "column_types": types,
        "source_ts": "2020-05-13 12:38:35.000",
        "sync_ts": "2020-05-13 12:38:35.477",
        "event_sequence": "3",
        "transaction_id": None,
        "row_index": 0,
        "is_partial": False,
    }
    assert [(r["primary_key"], r["row_index"], r["event_sequence"]) for r in rows[:9]] == [
        ([str(key)], index, "3") for index, key in enumerate(range(101, 110))
    ]
    assert rows[9] == {
        **rows[0],
        "op": "update",
        "source_op": "UPDATE",
        "primary_key": ["106"],
        "before_row": product("106", "hammer", "16oz carpenter's hammer", "1.0"),
        "after_row": product("106", "hammer", "18oz carpenter hammer", "1.0"),
        "source_ts": "2020-05-13 12:39:06.000",
        "sync_ts": "2020-05-13 12:39:06.301",
        "event_sequence": "4",
    }


def test_flink_canal_data_with_init_rows(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Canal")
    rows = change_log(cursor, "flink_init__inventory.products2")
    # INIT rows are snapshots; Flink emits them as +I, and the changelog is otherwise the
    # same except that 106 had no description before its update ("old": {"description":
    # null} means "was NULL"). Our maps also keep the column `other`, which Flink's fixed
    # schema drops.
    assert [row["op"] for row in rows[:9]] == ["snapshot"] * 9
    assert rows[0]["after_row"] == {
        **product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        "other": "val1",
    }
    expected = [
        line.replace("16oz carpenter's hammer", "null") if "(106," in line else line
        for line in FLINK_PRODUCTS_CHANGELOG
    ]
    without_other = [
        {
            **row,
            "before_row": strip_other(row["before_row"]),
            "after_row": strip_other(row["after_row"]),
        }
        for row in rows
    ]
    assert as_flink_changelog(without_other) == expected
    [update_106] = [r for r in rows if r["op"] == "update" and r["primary_key"] == ["106"]]
    assert update_106["before_row"] == {**product("106", "hammer", None, "1.0"), "other": "val2"}
    assert update_106["after_row"] == {
        **product("106", "hammer", "18oz carpenter hammer", "1.0"),
        "other": "val0",
    }
    final = live_rows(cursor, "flink_init__inventory.products2")
    assert [strip_other(row) for row in final] == FLINK_PRODUCTS_FINAL_STATE
    assert [row.get("other") for row in final] == [None, None, None, "val0", None, None, None, None]


def test_seatunnel_canal_data_orders(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Canal")
    # Beside mydb.product (test_formats.py), SeaTunnel's file changes mydb.orders.
    orders = live_rows(cursor, "seatunnel__mydb.orders")
    assert [(row["order_number"], row["quantity"]) for row in orders] == [
        ("10001", "3"),  # updated from 1
        ("10003", "2"),
        ("10004", "1"),
    ]  # 10002 deleted


# ---------------------------------------------------------------- every public set, replayed


def replay(lines: list[str]) -> tuple[dict[tuple[str, tuple], tuple[dict, bool]], list[str]]:
    """An independent reading of a Canal topic, in topic order (EXPECTED.md's "derived" state):
    insert/INIT/update upsert data[i], delete removes it, an update whose key changed ends the
    row under its old key. Returns the state and the reasons of the rows it cannot place."""
    state: dict[tuple[str, tuple], tuple[dict, bool]] = {}
    rejected: list[str] = []
    for line in lines:
        message = json.loads(line)
        kind = message.get("type")
        if message.get("isDdl") or kind not in ("INSERT", "UPDATE", "DELETE", "INIT"):
            continue
        if not message.get("table"):
            rejected.append(f"{kind} without table")
            continue
        table_key = ".".join(p for p in (message.get("database"), message["table"]) if p).lower()
        old = message.get("old") or []
        for index, row in enumerate(message["data"]):
            key_columns = message.get("pkNames") or sorted(row)
            key = tuple(row.get(column) for column in key_columns)
            if all(value is None for value in key):
                rejected.append(
                    f"no value for primary key column(s) {', '.join(key_columns)} in the row image"
                )
                continue
            if kind == "DELETE":
                state[(table_key, key)] = (row, True)
                continue
            if kind == "UPDATE" and index < len(old):
                before = {**row, **old[index]}
                before_key = tuple(before.get(column) for column in key_columns)
                if before_key != key:
                    state[(table_key, before_key)] = (before, True)
            state[(table_key, key)] = (row, False)
    return state, rejected


def test_every_public_canal_set_ends_in_the_state_its_replay_implies(
    pipeline_build: Any, cursor: Any
) -> None:
    require_public_samples("Canal")
    sets = {"": [PUBLIC / FLINK_CANAL_DATA], **canal_sets()}
    for tag, paths in sets.items():
        lines = [tagged(line, tag) if tag else line for p in paths for line in message_lines(p)]
        expected_state, _ = replay(lines)
        table_keys = sorted({table_key for table_key, _ in expected_state})
        if not table_keys:
            continue
        in_list = ", ".join(f"'{table_key}'" for table_key in table_keys)
        actual = {
            (row["table_key"], tuple(row["primary_key"])): (row["row_data"], row["is_deleted"])
            for row in current_state(cursor, f"table_key in ({in_list})")
        }
        assert actual == expected_state, tag


def test_public_sets_reject_only_incomplete_messages(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Canal")
    expected = []
    for tag, paths in canal_sets().items():
        lines = [tagged(line, tag) for path in paths for line in message_lines(path)]
        expected += replay(lines)[1]
    rows = query(
        cursor,
        f"""
        select rejection_reason from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format = 'canal_json' and not startswith(source_file, '{PROJECT_ROOT}/')
        order by source_file, source_position""",
    )
    # Paimon's incomplete/ files lack database and table; its case-insensitive/ file names
    # the key `k1` while the row has `K1`.
    assert sorted(row["rejection_reason"] for row in rows) == sorted(expected)
    assert sorted(expected) == [
        "INSERT without table",
        "INSERT without table",
        "INSERT without table",
        "no value for primary key column(s) k1 in the row image",
        "no value for primary key column(s) k1 in the row image",
    ]


def test_paimon_schema_evolution_state(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Canal")
    # Paimon merges schema_evolution_1 and _2 into one table; each is its own table here.
    # EXPECTED.md, "after 5": [pt, _id, v1, v2], and v4/v5 of rows 4 and 9.
    rows = [
        row
        for table in ("schema_evolution_1", "schema_evolution_2")
        for row in live_rows(cursor, f"paimon_table_schemaevolution__paimon_sync_table.{table}")
    ]
    rows.sort(key=lambda row: int(row["_id"]))
    assert [(r["pt"], r["_id"], r["v1"], r.get("v2")) for r in rows] == [
        ("1", "1", "one", None),
        ("1", "2", "second", None),
        ("2", "3", "three", "30000000000"),
        ("2", "4", "four", None),
        ("1", "6", "six", "60"),
        ("2", "7", "seven", "70000000000"),
        ("2", "8", "very long string", "80000000000"),
        ("1", "9", "nine", "90000000000"),
    ]
    assert [(r["v3"], r["v4"], r["v5"]) for r in rows if r["_id"] in ("4", "9")] == [
        (None, "four.bin.long", "4.00000000004"),
        ("99999.999", "nine.bin.long", "9.00000000009"),
    ]
    schema_changes = query(
        cursor,
        """
        select table_key, ddl_text from cdc_lake_intermediate.int_cdc__schema_changes
        where startswith(table_key, 'paimon_table_schemaevolution__') order by ordering_key""",
    )
    assert len(schema_changes) == 16
    assert schema_changes[0]["ddl_text"].endswith(
        "ALTER TABLE schema_evolution_1 ADD COLUMN v2 INT"
    )


def test_paimon_events_and_audit_time_state(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("Canal")
    # event-row, -insert, -update, -delete touch three source tables (Paimon merges them).
    prefix = "paimon_table_event__paimon_sync_table"
    assert [r["v1"] for r in live_rows(cursor, f"{prefix}.event")] == ["one", "two", "four"]
    assert live_rows(cursor, f"{prefix}.schema_evolution_2") == [
        {"pt": "1", "_id": "2", "v1": "second", "v2": None}
    ]
    assert [r["_id"] for r in live_rows(cursor, f"{prefix}.schema_evolution_1")] == ["9"]
    deleted = current_state(cursor, f"table_key = '{prefix}.schema_evolution_1' and is_deleted")
    assert [(r["primary_key"], r["last_op"]) for r in deleted] == [(["1"], "delete")]
    # Three messages with the same es, ts and id: the topic order decides (A, B, then C).
    assert live_rows(cursor, "paimon_database_audit_time__test_audit_time.t1") == [
        {"k": "1", "v1": "C"}
    ]
    # No primary key (pkNames []): the whole row is the identity; two identical inserts are
    # the same row.
    assert current_state(cursor, "table_key = 'paimon_table_nonpk__non_pk.t'") == [
        {
            "table_key": "paimon_table_nonpk__non_pk.t",
            "primary_key": ["five", "50"],
            "is_deleted": False,
            "last_op": "insert",
            "row_data": {"v0": "five", "v1": "50"},
        }
    ]


# ---------------------------------------------------------------- fixtures: canal_json


def fixture_change(
    table: str,
    op: str,
    key: list[str],
    before: dict | None,
    after: dict | None,
    sequence: str,
    seconds: int,
    **extra: Any,
) -> dict[str, Any]:
    row = {
        "op": op,
        "source_op": op.upper(),
        "primary_key_columns": ["id"],
        "primary_key": key,
        "previous_primary_key": None,
        "before_row": before,
        "after_row": after,
        "column_types": None,
        "source_ts": f"2023-11-14 22:{seconds // 60:02d}:{seconds % 60:02d}.000",
        "sync_ts": f"2023-11-14 22:{seconds // 60:02d}:{seconds % 60:02d}.100",
        "event_sequence": sequence,
        "transaction_id": None,
        "row_index": 0,
        "is_partial": False,
    }
    row.update(extra)
    return {"table": table, **row}


GTID = "3E11FA47-71CA-11E1-9E33-C80AA9429562"
KEY_CHANGE_TYPES = {"id": "int", "v": "varchar(10)"}
NO_PK_TYPES = {"v0": "varchar(10)", "v1": "int"}
# fmt: off
FIXTURE_CHANGES = [
    fixture_change("key_change", "insert", ["1"], None, {"id": "1", "v": "a"}, "11", 802,
                   column_types=KEY_CHANGE_TYPES, transaction_id=f"{GTID}:23"),
    # The key changed 1 -> 2: `old` holds only the changed column, the overlay rebuilds it.
    fixture_change("key_change", "update", ["2"], {"id": "1", "v": "a"}, {"id": "2", "v": "a"},
                   "12", 803, column_types=KEY_CHANGE_TYPES, transaction_id=f"{GTID}:24",
                   previous_primary_key=["1"]),
    # Same es, delivered update first: ts (not id, which went backwards) puts the insert first.
    fixture_change("late", "insert", ["7"], None, {"id": "7", "v": "early"}, "90", 806),
    fixture_change("late", "update", ["7"], {"id": "7", "v": "early"}, {"id": "7", "v": "late"},
                   "3", 806, sync_ts="2023-11-14 22:13:26.900"),
    # No key (pkNames [] or absent): every column, sorted by name.
    fixture_change("no_pk", "insert", ["x", "1"], None, {"v0": "x", "v1": "1"}, "13", 804,
                   primary_key_columns=["v0", "v1"], column_types=NO_PK_TYPES),
    fixture_change("no_pk", "update", ["x", "2"], {"v0": "x", "v1": "1"}, {"v0": "x", "v1": "2"},
                   "14", 805, primary_key_columns=["v0", "v1"], column_types=NO_PK_TYPES,
                   previous_primary_key=["x", "1"]),
    fixture_change("partly_bad", "insert", ["1"], None, {"id": "1", "v": "kept"}, "1", -1,
                   source_ts="2023-11-14 22:13:20.000", sync_ts="2023-11-14 22:13:20.001"),
    fixture_change("truncated", "insert", ["1"], None, {"id": "1"}, "15", 807),
    fixture_change("truncated", "insert", ["2"], None, {"id": "2"}, "15", 807, row_index=1),
    fixture_change("truncated", "truncate", None, None, None, "16", 808,
                   primary_key_columns=None),
    # Sent twice: one row.
    fixture_change("truncated", "insert", ["3"], None, {"id": "3"}, "17", 809),
]
# fmt: on


def test_fixture_change_log(pipeline_build: Any, cursor: Any) -> None:
    decoded = change_log_rows(
        cursor,
        "source_format = 'canal_json' and table_key like 'canal_fixtures.%' "
        "and table_key != 'canal_fixtures.value_types'",
        f"""table_name as table, to_json(column_types) as column_types,
            date_format(source_ts, '{MS}') as source_ts, date_format(sync_ts, '{MS}') as sync_ts,
            event_sequence, transaction_id, row_index, is_partial""",
        json_columns=("column_types",),
        order_by="table_key, ordering_key",
    )
    assert decoded == FIXTURE_CHANGES


def test_values_are_kept_as_sent(pipeline_build: Any, cursor: Any) -> None:
    [row] = current_state(cursor, "table_key = 'canal_fixtures.value_types'")
    assert row["row_data"] == {
        "id": "1",
        "n": "12345678901234567890",  # a writer that sends a JSON number: its digits
        "price": "0.10",
        "note": '中文 "quoted"',
        "bin": "\u00ffa",  # Canal's ISO-8859-1 text of a binary column, as sent
        "empty": "",
        "nothing": None,
    }


def test_fixture_current_state(pipeline_build: Any, cursor: Any) -> None:
    rows = current_state(
        cursor, "table_key like 'canal_fixtures.%' and table_key != 'canal_fixtures.value_types'"
    )
    assert [
        (r["table_key"], r["primary_key"], r["is_deleted"], r["last_op"], r["row_data"])
        for r in rows
    ] == [
        ("canal_fixtures.key_change", ["1"], True, "update", {"id": "1", "v": "a"}),
        ("canal_fixtures.key_change", ["2"], False, "update", {"id": "2", "v": "a"}),
        ("canal_fixtures.late", ["7"], False, "update", {"id": "7", "v": "late"}),
        ("canal_fixtures.no_pk", ["x", "1"], True, "update", {"v0": "x", "v1": "1"}),
        ("canal_fixtures.no_pk", ["x", "2"], False, "update", {"v0": "x", "v1": "2"}),
        ("canal_fixtures.partly_bad", ["1"], False, "insert", {"id": "1", "v": "kept"}),
        ("canal_fixtures.truncated", ["1"], True, "truncate", {"id": "1"}),
        ("canal_fixtures.truncated", ["2"], True, "truncate", {"id": "2"}),
        ("canal_fixtures.truncated", ["3"], False, "insert", {"id": "3"}),
    ]


def test_flink_cdc_canal_json_writer_output(pipeline_build: Any, cursor: Any) -> None:
    """Fixture flink_cdc_writer.jsonl, shaped as Flink CDC's Kafka pipeline writes canal-json
    (its CanalJsonSerializationSchemaTest): numbers as JSON numbers, the whole before row in
    `old`, no `es`/`ts`/`mysqlType`/`id`. Ordered by file position, it ends as written."""
    rows = current_state(cursor, "table_key = 'flink_cdc.orders'")
    assert [(r["primary_key"], r["is_deleted"], r["last_op"], r["row_data"]) for r in rows] == [
        (["1"], False, "update", {"id": "1", "name": "b", "qty": "4"}),
        (["2"], True, "delete", {"id": "2", "name": "z", "qty": "9"}),
    ]


def test_json_numbers_keep_their_spelling_when_asked(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """Fixture numbers_as_sent.jsonl, as Flink CDC's writer sends values (JSON numbers): with
    `canal_json_numbers_as_sent` each keeps the text written; without (the default, for
    Canal's own quoted values) Spark's reader respells them (`1.5`, `1000.0`)."""

    def staged(numbers_as_sent: bool) -> list[dict[str, Any]]:
        project_vars = {"canal_json_numbers_as_sent": numbers_as_sent}
        sql = staged_with_vars("stg_canal__json", project_vars, tmp_path / str(numbers_as_sent))
        return decode_json_columns(query(
            cursor,
            f"""select to_json(before_row) as before_row, to_json(after_row) as after_row
            from ({sql}) as staged
            where table_key = 'canal_numbers.prices' and event_kind = 'change'
            order by ordering_key""",
        ), "before_row", "after_row")  # fmt: skip

    as_sent = staged(True)
    assert as_sent[0]["after_row"] == {
        "id": "1", "price": "1.50", "ratio": "1E+3", "big": "12345678901234567890",
        "fine": "0.1234567890123456789", "plain": "3.25", "text": "1.50",
    }  # fmt: skip
    assert (as_sent[1]["before_row"]["price"], as_sent[1]["after_row"]["price"]) == ("1.50", "2.50")
    respelled = staged(False)[0]["after_row"]
    assert (respelled["price"], respelled["ratio"], respelled["text"]) == ("1.5", "1000.0", "1.50")


def test_key_columns_declared_per_table_when_pknames_is_empty_or_absent(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """`canal_fixtures.no_pk` sends `pkNames: []`, then none at all. Without the var its
    identity is the whole row (above: the update moves the key); with `canal_json_primary_keys`
    naming `v0`, both changes are one row's."""
    declared = {"canal_json_primary_keys": {"CANAL_FIXTURES.no_pk": ["v0"]}}
    rows = keyed_changes(cursor, "stg_canal__json", "canal_fixtures.no_pk", declared, tmp_path)
    assert rows == [
        {
            "op": op,
            "primary_key_columns": '["v0"]',
            "primary_key": '["x"]',
            "previous_primary_key": None,
        }
        for op in ("insert", "update")
    ]


def test_every_bad_message_is_kept_with_its_reason(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, rejection_reason, raw_value, source_file
        from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format in {MY_FORMATS_SQL} and startswith(source_file, '{PROJECT_ROOT}/')
        order by source_format, source_file, source_position""",
    )
    bad_file = PROJECT_ROOT / "udfs/tests/fixtures/canal_json/bad_messages.jsonl"
    canal = [row for row in rows if row["source_format"] == "canal_json"]
    assert all(row["source_file"] == str(bad_file) for row in canal)
    assert [row["rejection_reason"] for row in canal] == [
        "not valid JSON, or nested over 1000 levels deep",
        "JSON not shaped like a Canal message (a field has the wrong type)",
        "JSON not shaped like a Canal message (a field has the wrong type)",
        "no type: not a Canal message",
        "unknown type UPSERT",
        "INSERT without table",
        "UPDATE without data",
        "DELETE without data",
        "no value for primary key column(s) id in the row image",
        # The message's other row is staged (canal_fixtures.partly_bad).
        "INSERT without a row image at index 1",
    ]
    assert [row["raw_value"] for row in canal] == bad_file.read_text().splitlines()
    dts = [row for row in rows if row["source_format"] == "dts_canal_json"]
    # The document's example of an instance created before 2022-03-20, read with the
    # default (current) layout: the reason says which setting reads it.
    legacy = PROJECT_ROOT / (
        "seeds/samples/dts_canal_json/01_delete_instance_created_before_2022_03_20.jsonl"
    )
    assert dts == [
        {
            "source_format": "dts_canal_json",
            "rejection_reason": "DELETE without data; its row is in old, as DTS instances "
            "created before 2022-03-20 send it (set var dts_canal_json_legacy_layout: true)",
            "raw_value": legacy.read_text().rstrip("\n"),
            "source_file": str(legacy),
        }
    ]


def test_schema_changes(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, ddl_op, table_key, ddl_text, event_sequence,
            date_format(source_ts, '{MS}') as source_ts
        from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format in {MY_FORMATS_SQL}
            and (table_key like '%canal_fixtures.%' or table_key like 'dbname.%')
        order by source_format, ordering_key""",
    )
    assert rows == [
        {
            "source_format": "canal_json",
            "ddl_op": "truncate",
            "table_key": "canal_fixtures.truncated",
            "ddl_text": "TRUNCATE TABLE truncated",
            "event_sequence": "16",
            "source_ts": "2023-11-14 22:13:28.000",
        },
        {
            "source_format": "canal_json",
            "ddl_op": "alter",
            "table_key": "canal_fixtures.truncated",
            "ddl_text": "ALTER TABLE truncated ADD COLUMN c INT",
            "event_sequence": "18",
            "source_ts": "2023-11-14 22:13:30.000",
        },
        {
            "source_format": "dts_canal_json",
            "ddl_op": "ddl",
            "table_key": "dbname.tablename",
            "ddl_text": "eg:createxxx",
            "event_sequence": "58",
            "source_ts": "2020-09-15 09:24:54.000",
        },
        {
            "source_format": "dts_canal_json",
            "ddl_op": "ddl",
            "table_key": "dts_canal_fixtures.dts_orders",
            "ddl_text": "ALTER TABLE dts_orders ADD COLUMN note varchar(20)",
            "event_sequence": "103",
            "source_ts": "2023-11-14 22:20:00.000",
        },
    ]
    if PUBLIC.is_dir():  # Flink's canal-data.txt: its CREATE (isDdl) is a schema change
        [create] = query(
            cursor,
            "select ddl_op, ddl_text from cdc_lake_intermediate.int_cdc__schema_changes "
            "where table_key = 'inventory.user02'",
        )
        assert create["ddl_op"] == "create"
        assert create["ddl_text"].startswith("CREATE TABLE `xj_`.`user02`")


# ---------------------------------------------------------------- dts_canal_json

DTS_TYPES = {"id": "bigint", "status": "varchar", "amount": "decimal"}
DTS_GTID = "a1b2c3d4-0000-11ee-8000-000000000001"


def test_dts_change_log(pipeline_build: Any, cursor: Any) -> None:
    rows = [
        {key: row[key] for key in ("op", "source_op", "primary_key", "before_row", "after_row")}
        | {"event_sequence": row["event_sequence"], "transaction_id": row["transaction_id"]}
        | {"row_index": row["row_index"], "sync_ts": row["sync_ts"]}
        for row in change_log(cursor, "dts_canal_fixtures.dts_orders")
    ]
    order_1 = {"id": "1", "status": "new", "amount": "10.50"}
    order_2 = {"id": "2", "status": "new", "amount": "7.00"}
    assert rows == [
        # INIT: the full load, one snapshot per row.
        {"op": "snapshot", "source_op": "INIT", "primary_key": ["1"], "before_row": None,
         "after_row": order_1, "event_sequence": "0", "transaction_id": None, "row_index": 0,
         "sync_ts": "2023-11-14 22:15:00.500"},
        {"op": "snapshot", "source_op": "INIT", "primary_key": ["2"], "before_row": None,
         "after_row": order_2, "event_sequence": "0", "transaction_id": None, "row_index": 1,
         "sync_ts": "2023-11-14 22:15:00.500"},
        # Current layout: data is the new row, old (every column) the previous one.
        {"op": "update", "source_op": "UPDATE", "primary_key": ["1"], "before_row": order_1,
         "after_row": {**order_1, "status": "paid"}, "event_sequence": "101",
         "transaction_id": f"{DTS_GTID}:7", "row_index": 0, "sync_ts": "2023-11-14 22:16:40.500"},
        {"op": "delete", "source_op": "DELETE", "primary_key": ["2"], "before_row": order_2,
         "after_row": None, "event_sequence": "102", "transaction_id": f"{DTS_GTID}:8",
         "row_index": 0, "sync_ts": "2023-11-14 22:18:20.500"},
        {"op": "insert", "source_op": "INSERT", "primary_key": ["3"], "before_row": None,
         "after_row": {"id": "3", "status": "new", "amount": "1.00", "note": None},
         "event_sequence": "104", "transaction_id": f"{DTS_GTID}:10", "row_index": 0,
         "sync_ts": "2023-11-14 22:21:40.500"},
    ]  # fmt: skip
    assert change_log(cursor, "dts_canal_fixtures.dts_orders")[0]["column_types"] == DTS_TYPES


def test_dts_current_state(pipeline_build: Any, cursor: Any) -> None:
    rows = current_state(
        cursor, "table_key in ('dts_canal_fixtures.dts_orders', 'dbname.tablename')"
    )
    assert [(r["table_key"], r["primary_key"], r["is_deleted"], r["last_op"]) for r in rows] == [
        # The document's current-layout delete example (the row was never inserted).
        ("dbname.tablename", ["500000287"], True, "delete"),
        ("dts_canal_fixtures.dts_orders", ["1"], False, "update"),
        ("dts_canal_fixtures.dts_orders", ["2"], True, "delete"),
        ("dts_canal_fixtures.dts_orders", ["3"], False, "insert"),
    ]
    assert rows[0]["row_data"] == {"id": "500000287", "shipping_type": None}
    assert rows[1]["row_data"] == {"id": "1", "status": "paid", "amount": "10.50"}


def test_staging_leaves_out_the_first_delivery_window_unless_a_message_landed_twice(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """A Canal row's event id is its message's hash and its index in the message, so only a
    message landed twice gives two rows of one event (macro probe_new_messages): the
    canal landing holds the fixtures' duplicate, the DTS one holds none, and only canal's
    staging query has the window. Either way every event has exactly one first delivery."""
    repeats = {
        table: query(
            cursor,
            f"""select count(*) - count(distinct value, coalesce(source_name, '')) as repeats
                from cdc_raw.{table}""",
        )[0]["repeats"]
        for table in ("canal_json", "dts_canal_json")
    }
    assert repeats["canal_json"] > 0 and repeats["dts_canal_json"] == 0, repeats
    compiled = {
        model: staged_with_vars(model, {}, tmp_path / model)
        for model in ("stg_canal__json", "stg_aliyun_dts__canal_json")
    }
    assert "row_number()" in compiled["stg_canal__json"]
    assert "row_number()" not in compiled["stg_aliyun_dts__canal_json"]
    for model in compiled:
        events = query(
            cursor,
            f"""select event_id, event_kind, count_if(is_first_delivery) as first_deliveries,
                    count(*) as deliveries
                from cdc_lake_staging.{model}
                group by event_id, event_kind""",
        )
        assert events and all(event["first_deliveries"] == 1 for event in events), model
        if model == "stg_canal__json":
            assert any(event["deliveries"] > 1 for event in events)
