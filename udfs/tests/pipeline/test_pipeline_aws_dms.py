"""End to end on AWS DMS Kafka JSON (`aws_dms_json`): landed messages -> dbt build -> tables.

The bundled sample (a small `dms_demo.customers` stream), the fixtures of
fixtures/aws_dms_json/ (control records, full-load rows, transaction details, `BI_`
before-image columns and a `before-image` object, a key change, an update delivered before an
earlier one, records sharing one timestamp, a duplicate, a table that needs its key declared,
bad messages) and Apache Paimon's aws-dms sets of udfs/tests/public_samples/ (each with its
`schema-name` tagged, see support/public_landings.py), loaded before the session's one build, are
checked against the expectations of public_samples/EXPECTED.md and Paimon's ITCases. The
checks AWS DMS shares with other formats (its nodes built, its bad messages, the duplicate,
Paimon's table schema evolution) are in test_formats.py.
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
    staged_with_vars,
)
from support.public_landings import product, require_public_samples

pytestmark = pytest.mark.spark

MY_FORMATS = ("aws_dms_json",)
CHANGE_LOG = "cdc_lake_intermediate.int_cdc__change_log"
STAGING = "cdc_lake_staging.stg_aws_dms__json"
MICROS = "yyyy-MM-dd HH:mm:ss.SSSSSS"
BIG = {"id": "3", "status": "new", "amount": "12345678901234567890.123", "note": "big"}
DRILLS = ("12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3")


def by_id(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows sorted by their `id` (the public sets' key), then by their text."""
    return sorted(rows, key=lambda data: (int(data.get("id", 0)), json.dumps(data)))


def change_log(cursor: Any, table_key: str) -> list[dict[str, Any]]:
    """One table's changes in ordering_key order: the order every later model applies."""
    return format_change_log(
        cursor,
        MY_FORMATS,
        table_key,
        f"""date_format(source_ts, '{MICROS}') as source_ts,
            date_format(sync_ts, '{MICROS}') as sync_ts, event_sequence, source_log_position,
            transaction_id, schema_name, database_name""",
    )


def keyed_live_rows(
    cursor: Any, table_keys: list[str], key_columns: list[str], tmp_path: Path
) -> dict[str, list[dict[str, Any]]]:
    """Each table's live rows when the var declares `key_columns` as its key: staged with the
    var, the first delivery of each event, then the latest change of each key (the rule of
    every model after staging: greatest ordering_key), deletes ending their key."""
    declared = {"aws_dms_json_primary_keys": {table: key_columns for table in table_keys}}
    names = ", ".join(f"'{table}'" for table in table_keys)
    rows = query(
        cursor,
        f"""
        select table_key, op, primary_key, previous_primary_key,
            to_json(after_row) as after_row
        from ({staged_with_vars("stg_aws_dms__json", declared, tmp_path)}) as staged
        where table_key in ({names}) and event_kind = 'change' and is_first_delivery
        order by ordering_key, event_id""",
    )
    latest: dict[tuple[str, str], dict[str, Any] | None] = {}
    for row in rows:
        if row["previous_primary_key"] is not None:
            latest[(row["table_key"], row["previous_primary_key"])] = None
        image = json.loads(row["after_row"]) if row["op"] != "delete" else None
        latest[(row["table_key"], row["primary_key"])] = image
    return {
        table: by_id([image for (key, _), image in latest.items() if key == table and image])
        for table in table_keys
    }


# ---------------------------------------------------------------- public sets (Paimon)


def test_paimon_bi_columns_are_the_update_before_image(pipeline_build: Any, cursor: Any) -> None:
    require_public_samples("AWS DMS")
    rows = change_log(cursor, "paimon_table_schemaevolution__test.product")
    [update] = [row for row in rows if row["op"] == "update"]
    assert update["before_row"] == product(
        "105", "hammer", "14oz carpenter's hammer", "0.875", address="Shanghai"
    )
    # The BI_ columns are taken out of the row; the row key moves with the before image.
    assert update["after_row"] == product(
        "105", "hammer", "14oz carpenter's hammer", "0.875", address="Beijing"
    )
    assert update["primary_key_columns"] == ["address", "description", "id", "name", "weight"]
    assert update["previous_primary_key"] == [
        "Shanghai", "14oz carpenter's hammer", "105", "hammer", "0.875"
    ]  # fmt: skip
    # No transaction details in Paimon's files: no commit time; DMS's time is sync_ts.
    assert (update["source_ts"], update["sync_ts"]) == (None, "2024-10-27 12:39:03.210671")
    assert (update["transaction_id"], update["schema_name"], update["database_name"]) == (
        "670014899490",
        "paimon_table_schemaevolution__test",
        None,
    )


def test_paimon_null_field_value(pipeline_build: Any, cursor: Any) -> None:
    # KafkaSyncTableActionITCase#testTableFiledValNull: data-4 alone gives 103 with a NULL
    # weight and 104.
    require_public_samples("AWS DMS")
    assert format_live_rows(cursor, MY_FORMATS, "paimon_table_fieldvalnull__test.product") == [
        product("103", *DRILLS, None),
        product("104", "hammer", "12oz carpenter's hammer", "0.75"),
    ]


def test_paimon_startup_mode_and_other_table_sets(pipeline_build: Any, cursor: Any) -> None:
    # testStarUpOptionEarliest / Group: both files read, 101 to 104; the computed and metadata
    # column sets' one row (the computed `_year` and Kafka metadata columns are Paimon's
    # additions, not the message's); the watermark set's two rows (derived).
    require_public_samples("AWS DMS")
    assert format_live_rows(cursor, MY_FORMATS, "paimon_table_startupmode__test.product") == [
        product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        product("102", "car battery", "12V car battery", "8.1"),
        product("103", *DRILLS, "0.8"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75"),
    ]
    for tag in ("computedcolumn", "metadatacolumn"):
        rows = format_live_rows(cursor, MY_FORMATS, f"paimon_table_{tag}__test.product")
        assert rows == [{"_id": "101", "_date": "2023-03-23"}]
    assert [
        row["id"]
        for row in format_live_rows(cursor, MY_FORMATS, "paimon_table_watermark__test.product")
    ] == [
        "101",
        "102",
    ]


def test_paimon_database_sets_with_the_key_paimon_declares(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    # KafkaAWSDMSSyncDatabaseActionITCase declares primary key `id` (DMS sends none): with the
    # var, each second file's rows replace the first's (EXPECTED.md's replay rule).
    require_public_samples("AWS DMS")
    evolution = "paimon_database_schemaevolution__paimon_sync_database"
    affix = "paimon_database_prefixsuffix__paimon_sync_database"
    tables = [f"{evolution}.t1", f"{evolution}.t2", f"{affix}.t1", f"{affix}.t2"]
    live = keyed_live_rows(cursor, tables, ["id"], tmp_path)
    assert live[f"{evolution}.t1"] == [
        product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        product("102", "car battery", "12V car battery", "8.1"),
        product("103", *DRILLS, "0.8", age="19"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75", age="25"),
    ]
    assert live[f"{evolution}.t2"] == [
        product("103", *DRILLS, "0.8", address="Beijing"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75", address="Shanghai"),
    ]
    assert live[f"{affix}.t1"] == [
        product("101", "scooter", "Small 2-wheel scooter", "3.14", address="Beijing"),
        product("102", "car battery", "12V car battery", "8.1", address="Shanghai"),
    ]
    assert live[f"{affix}.t2"] == [
        product("103", *DRILLS, "0.8", age="19"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75", age="25"),
    ]


def test_paimon_database_sets_keyed_by_the_whole_row(pipeline_build: Any, cursor: Any) -> None:
    # Without the var (the session's build), a row re-sent with a new column is another key:
    # the documented default, as Paimon's own result for a table without a key (its
    # Debezium variant of this test) shows.
    require_public_samples("AWS DMS")
    evolution = "paimon_database_schemaevolution__paimon_sync_database"
    assert format_live_rows(cursor, MY_FORMATS, f"{evolution}.t2") == by_id(
        [
            product("103", *DRILLS, "0.8"),
            product("103", *DRILLS, "0.8", address="Beijing"),
            product("104", "hammer", "12oz carpenter's hammer", "0.75"),
            product("104", "hammer", "12oz carpenter's hammer", "0.75", address="Shanghai"),
        ]
    )
    include = "paimon_database_include__paimon_sync_database_affix"
    tables = query(
        cursor,
        f"""
        select distinct table_key from {CHANGE_LOG}
        where source_format = 'aws_dms_json' and startswith(table_key, '{include}')
        order by table_key""",
    )
    assert [row["table_key"] for row in tables] == [
        f"{include}.flink",
        f"{include}.ignore",
        f"{include}.paimon_1",
        f"{include}.paimon_2",
    ]


# ---------------------------------------------------------------- the bundled sample


def test_sample_current_state(pipeline_build: Any, cursor: Any) -> None:
    rows = format_current_state(cursor, MY_FORMATS, "table_key = 'dms_demo.customers'")
    live = [row["row_data"] for row in rows if not row["is_deleted"]]
    assert by_id(live) == [
        {"id": "1", "name": "Ada L.", "balance": "12.75"},
        {"id": "3", "name": "Edsger", "balance": "7.25"},
    ]
    deleted = [(row["row_data"]["id"], row["last_op"]) for row in rows if row["is_deleted"]]
    assert ("2", "delete") in deleted


# ---------------------------------------------------------------- our fixtures


def test_fixture_orders_change_log(pipeline_build: Any, cursor: Any) -> None:
    rows = change_log(cursor, "dms_fx.orders")
    assert [(row["op"], row["after_row"] or row["before_row"]) for row in rows] == [
        ("snapshot", {"id": "1", "status": "new", "amount": "10.500", "note": None}),
        ("snapshot", {"id": "2", "status": "new", "amount": "20.25", "note": "b"}),
        # delivered twice, one change; every digit as sent
        ("insert", BIG),
        # delivered after the update it follows: DMS's timestamp orders them
        ("update", {"id": "2", "status": "paid", "amount": "20.25", "note": "b"}),
        ("update", {"id": "2", "status": "shipped", "amount": "20.25", "note": "b"}),
        ("delete", BIG),
        ("update", {"id": "20", "status": "shipped", "amount": "20.25", "note": "b"}),
        ("update", {"id": "1", "status": "new", "amount": "10.500", "note": "gift"}),
    ]  # fmt: skip
    insert = rows[2]
    assert (insert["source_ts"], insert["sync_ts"]) == (
        "2024-07-29 00:58:17.974340",
        "2024-07-29 00:58:17.983670",
    )
    assert (insert["transaction_id"], insert["event_sequence"]) == ("1139", "1")
    assert insert["source_log_position"] == "00000002/7C007178.3.00000002/7C007178"
    # Full-load rows have no before image; a load row has no commit time.
    assert rows[0]["before_row"] is None and rows[0]["source_ts"] is None
    # A key change from the `before-image` object: the old key's row ends there.
    assert rows[6]["before_row"]["id"] == "2"
    assert rows[6]["previous_primary_key"] == ["20.25", "2", "b", "shipped"]
    # A BI_ column that is null means "was NULL".
    assert rows[7]["before_row"] == {"id": "1", "status": "new", "amount": "10.500", "note": None}


def test_fixture_orders_current_state(pipeline_build: Any, cursor: Any) -> None:
    assert format_live_rows(cursor, MY_FORMATS, "dms_fx.orders") == [
        {"id": "1", "status": "new", "amount": "10.500", "note": "gift"},
        {"id": "20", "status": "shipped", "amount": "20.25", "note": "b"},
    ]


def test_records_of_one_timestamp_keep_their_delivery_order(
    pipeline_build: Any, cursor: Any
) -> None:
    rows = change_log(cursor, "dms_fx.items")
    assert [(row["op"], row["after_row"]["qty"]) for row in rows] == [
        ("insert", "1"),
        ("update", "2"),
        ("update", "3"),
    ]
    assert format_live_rows(cursor, MY_FORMATS, "dms_fx.items") == [{"sku": "a", "qty": "3"}]


def test_a_table_needs_its_key_declared(pipeline_build: Any, cursor: Any, tmp_path: Path) -> None:
    # PostgreSQL's default replica identity: an empty before image, a delete with only the
    # key. Keyed by the whole row (no var), the update looks like a new row and the delete
    # ends nothing; with the key declared the row is updated, then deleted.
    assert len(format_live_rows(cursor, MY_FORMATS, "dms_fx.accounts")) == 2
    declared = {"aws_dms_json_primary_keys": {"dms_fx.accounts": ["id"]}}
    rows = keyed_changes(cursor, "stg_aws_dms__json", "dms_fx.accounts", declared, tmp_path)
    assert [(row["op"], row["primary_key"], row["previous_primary_key"]) for row in rows] == [
        ("insert", '["7"]', None),
        ("update", '["7"]', None),
        ("delete", '["7"]', None),
    ]
    assert keyed_live_rows(cursor, ["dms_fx.accounts"], ["id"], tmp_path / "again") == {
        "dms_fx.accounts": []
    }


def test_control_records_are_schema_changes(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select ddl_op, table_key, schema_name, ddl_text, ddl_meta
        from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format = 'aws_dms_json'
            and (startswith(table_key, 'dms_') or table_key = 'awsdms_apply_exceptions')
        order by ordering_key""",
    )
    assert [(row["ddl_op"], row["table_key"]) for row in rows] == [
        ("create-table", "dms_demo.customers"),
        ("create-table", "dms_fx.orders"),
        ("add-column", "dms_fx.orders"),
        ("create-table", "awsdms_apply_exceptions"),
    ]
    # DMS sends no statement: the control object (IncludeControlDetails) is kept as it came.
    assert all(row["ddl_text"] is None for row in rows)
    assert json.loads(rows[1]["ddl_meta"])["table-def"]["primary-key"] == ["id"]
    assert rows[2]["ddl_meta"] is None
    assert rows[3]["schema_name"] is None


def test_no_aws_dms_record_is_a_marker_or_heartbeat(pipeline_build: Any, cursor: Any) -> None:
    counts = query(
        cursor,
        f"""
        select event_kind, count(*) as events from {STAGING}
        group by event_kind order by event_kind""",
    )
    assert {row["event_kind"] for row in counts} == {"change", "schema_change", "rejected"}
