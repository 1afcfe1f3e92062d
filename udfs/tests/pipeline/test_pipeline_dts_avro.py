"""End to end on DTS Avro: base64 sample lines -> binary landing -> UDF -> change log -> state.

The vendor document gives no example records, so the samples are records written with the
shipped DTS schema (udfs/cdc_lake/schemas/aliyun_dts/): a transaction with an insert, an
update, an insert and delete of a row with a GBK text, an EmptyObject and a NULL, a DDL and a
heartbeat. The fixtures add messages that cannot be decoded.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from support.pipeline import decode_json_columns, query

pytestmark = pytest.mark.spark

MS = "yyyy-MM-dd HH:mm:ss.SSS"
ROW_1 = {
    "id": "1",
    "note": "hello",
    "amount": "12.50",
    "created_at": "2024-01-02 03:04:05",
    "updated_at": "2024-01-02 03:04:05.123000",
    "photo": "AAEC",
}
ROW_1_AFTER = {
    **ROW_1,
    "note": "world",
    "amount": "99.99",
    "updated_at": "2024-01-02 03:05:00.000000",
}
ROW_2 = {
    "id": "2",
    "note": "中文",
    "amount": "-0.01",
    "created_at": "2024-01-03 00:00:00.500000",
    "updated_at": None,
    "photo": None,
}
TYPES = {
    "id": "3",
    "note": "253",
    "amount": "246",
    "created_at": "12",
    "updated_at": "7",
    "photo": "252",
}


def test_change_log_rows(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select op, source_op, table_key, to_json(primary_key_columns) as key_columns,
            primary_key, to_json(before_row) as before_row, to_json(after_row) as after_row,
            to_json(column_types) as column_types, date_format(source_ts, '{MS}') as source_ts,
            date_format(sync_ts, '{MS}') as sync_ts, event_sequence, source_log_position,
            transaction_id
        from cdc_lake_intermediate.int_cdc__change_log
        where source_format = 'dts_avro'
        order by ordering_key""",
    )
    decode_json_columns(
        rows, "key_columns", "primary_key", "before_row", "after_row", "column_types"
    )
    common = {"table_key": "shop.orders", "key_columns": ["id"], "column_types": TYPES}
    assert rows == [
        {**common, "op": "insert", "source_op": "INSERT", "primary_key": ["1"],
         "before_row": None, "after_row": ROW_1, "source_ts": "2024-01-02 03:04:05.000",
         "sync_ts": "2024-01-02 03:04:05.250", "event_sequence": "101",
         "source_log_position": "1100@mysql-bin.000042", "transaction_id": "8812"},
        {**common, "op": "update", "source_op": "UPDATE", "primary_key": ["1"],
         "before_row": ROW_1, "after_row": ROW_1_AFTER, "source_ts": "2024-01-02 03:05:00.000",
         "sync_ts": "2024-01-02 03:05:00.250", "event_sequence": "103",
         "source_log_position": "1300@mysql-bin.000042", "transaction_id": "8813"},
        {**common, "op": "insert", "source_op": "INSERT", "primary_key": ["2"],
         "before_row": None, "after_row": ROW_2, "source_ts": "2024-01-02 03:05:01.000",
         "sync_ts": "2024-01-02 03:05:01.250", "event_sequence": "104",
         "source_log_position": "1400@mysql-bin.000042", "transaction_id": "8814"},
        {**common, "op": "delete", "source_op": "DELETE", "primary_key": ["2"],
         "before_row": ROW_2, "after_row": None, "source_ts": "2024-01-02 03:05:02.000",
         "sync_ts": "2024-01-02 03:05:02.250", "event_sequence": "105",
         "source_log_position": "1500@mysql-bin.000042", "transaction_id": "8815"},
    ]  # fmt: skip


def test_current_state(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select primary_key, is_deleted, last_op, to_json(row_data) as row_data
        from cdc_lake.cdc_current_state where table_key = 'shop.orders' order by primary_key""",
    )
    states = [
        (r["primary_key"], r["is_deleted"], r["last_op"], json.loads(r["row_data"])) for r in rows
    ]
    assert states == [
        ('["1"]', False, "update", ROW_1_AFTER),
        ('["2"]', True, "delete", ROW_2),
    ]  # fmt: skip


def test_markers_heartbeats_and_ddl(pipeline_build: Any, cursor: Any) -> None:
    markers = query(
        cursor,
        """
        select marker, transaction_id from cdc_lake_intermediate.int_cdc__transaction_markers
        where source_format = 'dts_avro' order by ordering_key""",
    )
    assert markers == [
        {"marker": "begin", "transaction_id": "8812"},
        {"marker": "commit", "transaction_id": "8812"},
    ]
    [heartbeat] = query(
        cursor,
        f"""
        select date_format(heartbeat_at, '{MS}') as heartbeat_at
        from cdc_lake_intermediate.int_cdc__heartbeats where source_format = 'dts_avro'""",
    )
    assert heartbeat == {"heartbeat_at": "2024-01-02 03:05:04.000"}
    [ddl] = query(
        cursor,
        """
        select ddl_op, table_key, ddl_text from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format = 'dts_avro'""",
    )
    assert ddl == {
        "ddl_op": "ddl",
        "table_key": "shop.orders",
        "ddl_text": "ALTER TABLE orders ADD COLUMN extra int",
    }


def test_undecodable_messages_are_kept_with_the_reason(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select rejection_reason, raw_value from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format = 'dts_avro' order by source_file, source_position""",
    )
    assert [row["rejection_reason"] for row in rows] == [
        "message ends early (truncated, or a corrupt length or count): Expected -58 bytes, read 16",
        "corrupt union or enum index, or an over-long varint: string index out of range",
        "1 trailing byte(s) after the record",
        "INSERT without afterImages",
    ]
    assert base64.b64decode(rows[0]["raw_value"]) == b"this is not base64 !"
