"""End to end on DataWorks JSON and DataHub Blob: landed samples -> dbt build -> tables.

Every example message of the two vendor documents is bundled in seeds/samples/; the fixtures
add bad messages, value types, a truncate and out-of-order delivery. The expected rows below
are worked out by hand from the documents.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from support.pipeline import change_log_rows, format_current_state, query
from support.project import PROJECT_ROOT

pytestmark = pytest.mark.spark

CHANGE_LOG = "cdc_lake_intermediate.int_cdc__change_log"
MS = "yyyy-MM-dd HH:mm:ss.SSS"

# fmt: off
TEMPLATE_BEFORE = {"binData": "c2Nvb3Rlcg==", "id": "111", "name": "scooter",
                   "ts": "2020-05-24 10:14:29.000"}
TEMPLATE_AFTER = {"binData": "ZG9uYWxk", "id": "222", "name": "donald",
                  "ts": "2020-05-24 10:14:29.000"}
ROWID = {"rowid": "AAIUMPAAFAACxExAAE"}
NO_PK_ROW = {"#alibaba_rds_row_id#": "15", "job": "job11", "name": "name11"}
SHIYU = {"id": "1", "name": "joe"}
# fmt: on


def change(
    fmt: str,
    op: str,
    source_op: str,
    table_key: str,
    key_columns: list[str],
    key: list[str],
    before: dict | None,
    after: dict | None,
    source_ts: str,
    sync_ts: str,
    sequence: str,
    **extra: Any,
) -> dict[str, Any]:
    row = {
        "source_format": fmt,
        "op": op,
        "source_op": source_op,
        "table_key": table_key,
        "primary_key_columns": key_columns,
        "primary_key": key,
        "previous_primary_key": None,
        "before_row": before,
        "after_row": after,
        "source_ts": source_ts,
        "sync_ts": sync_ts,
        "event_sequence": sequence,
        "source_log_position": None,
        "kafka_topic": None,
        "kafka_offset": None,
        "is_partial": False,
    }
    row.update(extra)
    return row


# fmt: off
EXPECTED_SAMPLE_CHANGES = [
    change("datahub_blob", "update", "UPDATE", "mydatabase.myschema.tablename", ["id"],
           ["222"], TEMPLATE_BEFORE, TEMPLATE_AFTER, "2020-05-24 10:14:30.000",
           "2020-05-24 10:14:30.500", "1590315269000000002", previous_primary_key=["111"]),
    change("datahub_blob", "insert", "INSERT", "yunshi_db.t_shiyu_pk", ["id", "name"],
           ["1", "joe"], None, {**SHIYU, "comment": "comment"}, "2020-11-14 07:45:32.000",
           "2020-11-14 07:45:32.736", "1605339516000000004"),
    change("datahub_blob", "update", "UPDATE_AFTER", "yunshi_db.t_shiyu_pk", ["id", "name"],
           ["1", "joe"], {**SHIYU, "comment": "comment"}, {**SHIYU, "comment": "com1"},
           "2020-11-14 07:45:34.000", "2020-11-14 07:45:34.951", "1605339516000000005"),
    change("datahub_blob", "delete", "DELETE", "yunshi_db.t_shiyu_pk", ["id", "name"],
           ["1", "joe"], {**SHIYU, "comment": "com1"}, None, "2020-11-14 07:45:37.000",
           "2020-11-14 07:45:37.671", "1605339516000000006"),
    change("dataworks_json", "update", "UPDATE_AFTER", "mydatabase.myschema.tablename",
           ["id"], ["222"], {**TEMPLATE_BEFORE, **ROWID}, {**TEMPLATE_AFTER, **ROWID},
           "2020-05-24 10:14:29.000", "2020-05-24 10:14:29.500", "1590315269000000001",
           previous_primary_key=["111"], source_log_position="2850021"),
    change("dataworks_json", "insert", "INSERT", "pkset_test.pkset_test_no_pk",
           ["#alibaba_rds_row_id#"], ["15"], None, {**NO_PK_ROW, "sex": "man"},
           "2021-05-08 07:11:36.000", "2021-05-08 07:11:36.977", "1620457642589000000",
           kafka_topic="dataworks_pkset_test", kafka_offset=100),
    # Sent twice: as UPDATE_BEFOR + UPDATE_AFTER (kcat file) and as one message; one row.
    change("dataworks_json", "update", "UPDATE_AFTER", "pkset_test.pkset_test_no_pk",
           ["#alibaba_rds_row_id#"], ["15"], {**NO_PK_ROW, "sex": "man"},
           {**NO_PK_ROW, "sex": "woman"}, "2021-05-08 07:14:37.000", "2021-05-08 07:14:37.779",
           "1620457642589000001", kafka_topic="dataworks_pkset_test", kafka_offset=102),
    change("dataworks_json", "delete", "DELETE", "pkset_test.pkset_test_no_pk",
           ["#alibaba_rds_row_id#"], ["15"], {**NO_PK_ROW, "sex": "woman"}, None,
           "2021-05-08 07:17:46.000", "2021-05-08 07:17:46.101", "1620457642589000002",
           kafka_topic="dataworks_pkset_test", kafka_offset=103),
]
# fmt: on


def test_build_succeeds_and_warns_about_bad_messages(pipeline_build: Any, cursor: Any) -> None:
    assert pipeline_build.success, pipeline_build.exception
    by_name = {result.node.name: result for result in pipeline_build.result.results}
    assert all(r.status in ("success", "pass", "warn") for r in by_name.values()), {
        name: r.status for name, r in by_name.items() if r.status not in ("success", "pass")
    }
    [rejected] = query(
        cursor, "select count(*) as n from cdc_lake_intermediate.int_cdc__rejected_messages"
    )
    assert rejected["n"] >= 9  # the DataWorks fixtures' bad messages, at least
    assert by_name["assert_no_rejected_messages"].status == "warn"
    assert by_name["assert_no_rejected_messages"].failures == rejected["n"]
    # The first halves of updates whose second half never came: one fixture per format
    # (unpaired_update_befor(e).jsonl of DataWorks, DataHub Tuple and SharePlex).
    assert by_name["assert_every_update_before_has_its_after"].status == "warn"
    assert by_name["assert_every_update_before_has_its_after"].failures == 3


def test_a_first_half_without_its_second_is_staged_not_rejected(
    pipeline_build: Any, cursor: Any
) -> None:
    """Its other half may come in a later load: it waits as an `update_half`, in no model."""
    rows = query(
        cursor,
        """
        select source_format, source_op, event_kind
        from cdc_lake_intermediate.int_cdc__staged_events
        where source_file rlike '/unpaired_update_befor(e)?[.]jsonl$'
        order by source_format""",
    )
    assert rows == [
        {"source_format": fmt, "source_op": op, "event_kind": "update_half"}
        for fmt, op in [
            ("datahub_tuple", "U"),
            ("dataworks_json", "UPDATE_BEFOR"),
            ("dts_shareplex_json", "UPDATE BEFORE"),
        ]
    ]


def test_change_log_rows_of_the_vendor_examples(pipeline_build: Any, cursor: Any) -> None:
    decoded = change_log_rows(
        cursor,
        "source_file like '%/seeds/samples/%' "
        "and source_format in ('dataworks_json', 'datahub_blob')",
        f"""source_format, table_key, date_format(source_ts, '{MS}') as source_ts,
            date_format(sync_ts, '{MS}') as sync_ts, event_sequence, source_log_position,
            kafka_topic, kafka_offset, is_partial""",
        order_by="source_format, table_key, ordering_key",
    )
    assert decoded == EXPECTED_SAMPLE_CHANGES


def current_state(cursor: Any, table_filter: str) -> list[dict[str, Any]]:
    return format_current_state(cursor, ("dataworks_json", "datahub_blob"), table_filter)


def test_current_state_of_the_vendor_examples(pipeline_build: Any, cursor: Any) -> None:
    assert current_state(cursor, "table_key not like 'fixture_db.%'") == [
        # The update changed the key 111 -> 222: the row ends under 111. DataHub's copy of
        # the same change is later (sequenceId ...002) and carries no Oracle rowid.
        {
            "table_key": "mydatabase.myschema.tablename",
            "primary_key": ["111"],
            "is_deleted": True,
            "last_op": "update",
            "row_data": TEMPLATE_BEFORE,
        },
        {
            "table_key": "mydatabase.myschema.tablename",
            "primary_key": ["222"],
            "is_deleted": False,
            "last_op": "update",
            "row_data": TEMPLATE_AFTER,
        },
        {
            "table_key": "pkset_test.pkset_test_no_pk",
            "primary_key": ["15"],
            "is_deleted": True,
            "last_op": "delete",
            "row_data": {**NO_PK_ROW, "sex": "woman"},
        },
        {
            "table_key": "yunshi_db.t_shiyu_pk",
            "primary_key": ["1", "joe"],
            "is_deleted": True,
            "last_op": "delete",
            "row_data": {**SHIYU, "comment": "com1"},
        },
    ]


def test_values_keep_their_exact_text(pipeline_build: Any, cursor: Any) -> None:
    [row] = current_state(cursor, "table_key = 'fixture_db.value_types'")
    assert row["row_data"] == {
        "id": "12345678901234567890",
        "price": "0.1000000000000000000001",
        "flag": "true",
        "note": '中文 "quoted"',
        "bin": "AAEC",
        "ts": "2020-05-24 10:14:29.123",
        "bad_ts": "not-a-date",  # a DATE that is not epoch ms is kept as sent
        "nothing": None,
    }


def test_truncate_ends_earlier_rows_only(pipeline_build: Any, cursor: Any) -> None:
    rows = current_state(cursor, "table_key = 'fixture_db.truncated'")
    assert [(r["primary_key"], r["is_deleted"], r["last_op"]) for r in rows] == [
        (["1"], True, "truncate"),
        (["2"], True, "truncate"),
        (["3"], False, "insert"),
    ]


def test_order_comes_from_the_sequence_not_the_load_order(pipeline_build: Any, cursor: Any) -> None:
    rows = current_state(cursor, "table_key = 'fixture_db.late'")
    assert rows == [
        {
            "table_key": "fixture_db.late",
            "primary_key": ["7"],
            "is_deleted": False,
            "last_op": "update",
            "row_data": {"id": "7", "name": "b"},
        }
    ]


def test_every_bad_message_is_kept_with_its_reason(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select source_format, rejection_reason, raw_value, source_file
        from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format in ('dataworks_json', 'datahub_blob')
        order by source_format, source_file, source_position""",
    )
    assert all("/udfs/tests/fixtures/" in row["source_file"] for row in rows)
    blob, *bad = rows
    assert blob["source_format"] == "datahub_blob"
    assert blob["rejection_reason"] == "Blob record is not UTF-8 text"
    raw = (PROJECT_ROOT / "udfs/tests/fixtures/datahub_blob/not_utf8.jsonl").read_bytes()
    assert base64.b64decode(blob["raw_value"]) == raw.rstrip(b"\n")
    assert [row["rejection_reason"] for row in bad] == [
        "not valid JSON, or nested over 1000 levels deep",
        "no payload.op: not a DataWorks message",
        "unknown payload.op UPSERT",
        "INSERT without payload.after.dataColumn",
        "no value for primary key column(s) pkName1, pkName2 in the row image",
        "INSERT without schema.source.tableName",
        "JSON not shaped like a DataWorks message (a field has the wrong type)",
    ]
    lines = (PROJECT_ROOT / "udfs/tests/fixtures/dataworks_json/bad_messages.jsonl").read_text()
    assert [row["raw_value"] for row in bad] == lines.splitlines()


def test_heartbeats(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, date_format(heartbeat_at, '{MS}') as heartbeat_at
        from cdc_lake_intermediate.int_cdc__heartbeats
        where source_format in ('dataworks_json', 'datahub_blob')
        order by source_format""",
    )
    assert rows == [
        {"source_format": "datahub_blob", "heartbeat_at": "2020-11-14 07:45:53.629"},
        {"source_format": "dataworks_json", "heartbeat_at": "2021-05-08 07:07:39.000"},
    ]


def test_schema_changes_keep_ddl_text_and_raw_ddl_meta(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select source_format, ddl_op, table_key, ddl_text, ddl_meta, event_sequence,
            to_json(ddl_summary) as ddl_summary, ddl_meta_error
        from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format in ('dataworks_json', 'datahub_blob')
            -- the DDL fixtures of test_table_schemas.py (schema_evolution.jsonl)
            and table_key not like 'fixture_db.schema_%'
        order by table_key""",
    )
    sample = (PROJECT_ROOT / "seeds/samples/datahub_blob/04_ddl_alter_table.jsonl").read_text()
    ddl_meta = json.loads(sample)["payload"]["ddl"]["ddlMeta"]
    assert rows == [
        {
            "source_format": "dataworks_json",
            "ddl_op": "truncate",
            "table_key": "fixture_db.truncated",
            "ddl_text": "truncate table truncated",
            "ddl_meta": None,
            "event_sequence": "2002",
            "ddl_summary": None,
            "ddl_meta_error": None,
        },
        {
            "source_format": "datahub_blob",
            "ddl_op": "alter",
            "table_key": "yunshi_db.t_shiyu_nopk",
            "ddl_text": "alter table t_shiyu_nopk add column holo text",
            "ddl_meta": ddl_meta,
            "event_sequence": "1605339516000000035",
            "ddl_summary": json.dumps(
                {
                    "ddl_text": "alter table t_shiyu_nopk add column holo text",
                    "statement_type": "alter_table",
                    "db_type": "mysql",
                    "table_name": "t_shiyu_nopk",
                    "columns": [{"action": "add", "name": "holo", "data_type": "text"}],
                },
                separators=(",", ":"),
            ),
            "ddl_meta_error": None,
        },
    ]


def test_transaction_markers_bound_their_changes(pipeline_build: Any, cursor: Any) -> None:
    markers = query(
        cursor,
        """
        select marker, event_sequence, ordering_key
        from cdc_lake_intermediate.int_cdc__transaction_markers
        where source_format in ('dataworks_json', 'datahub_blob')
        order by ordering_key""",
    )
    assert [(m["marker"], m["event_sequence"]) for m in markers] == [
        ("transaction_begin", "4000"),
        ("transaction_end", "4003"),
    ]
    changes = query(
        cursor,
        f"select ordering_key from {CHANGE_LOG} where table_key = 'fixture_db.orders'",
    )
    assert len(changes) == 2
    begin, end = markers[0]["ordering_key"], markers[1]["ordering_key"]
    assert all(begin < change["ordering_key"] < end for change in changes)
