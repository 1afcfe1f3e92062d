"""End to end on Huawei DRS DDS (MongoDB): shell-JSON messages -> change log -> folded state.

The samples are the five DDS examples of the vendor document (insert, replace, update with
`$set`, update with `$unset` + `$set`, delete of one document in `ljx.ljx`). The fixtures add
three documents of `shop.customers` that stop at each stage of insert -> update -> replace ->
delete (one partial update with a dotted path, an update listed after the replace that follows
it, to show that `clusterTime` orders), and messages that cannot be staged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.pipeline import decode_json_columns, query

pytestmark = pytest.mark.spark

MS = "yyyy-MM-dd HH:mm:ss.SSS"
LJX_ID = '{"$oid":"64650cf67dc36a464e76e583"}'
A_ID = '{"$oid":"65a1b2c3d4e5f60718293a4b"}'
C_ID = '{"$numberLong":"42"}'

LJX_INSERT = {
    "_id": LJX_ID,
    "c1": "baz",
    "tags": '["mongodb","database","NoSQL"]',
    "_document": '{"_id":' + LJX_ID + ',"c1":"baz","tags":["mongodb","database","NoSQL"]}',
}
LJX_REPLACE = {"_id": LJX_ID, "c1": "sss", "_document": '{"_id":' + LJX_ID + ',"c1":"sss"}'}
A_INSERT = {
    "_id": A_ID,
    "name": "Ann",
    "age": '{"$numberInt":"30"}',
    "address": '{"city":"Beijing","zip":"100000"}',
    "tags": '["vip","new"]',
    "since": '{"$date":"2024-01-02T03:04:05.678Z"}',
    "balance": '{"$numberDecimal":"10.50"}',
    "score": "4.5",
    "active": "true",
    "note": None,
    "_document": '{"_id":' + A_ID + ',"name":"Ann","age":{"$numberInt":"30"},'
    '"address":{"city":"Beijing","zip":"100000"},"tags":["vip","new"],'
    '"since":{"$date":"2024-01-02T03:04:05.678Z"},"balance":{"$numberDecimal":"10.50"},'
    '"score":4.5,"active":true,"note":null}',
}
B_INSERT = {
    "_id": "cust-b",
    "name": "Bob",
    "age": '{"$numberInt":"40"}',
    "_document": '{"_id":"cust-b","name":"Bob","age":{"$numberInt":"40"}}',
}
B_REPLACE = {
    "_id": "cust-b",
    "name": "Robert",
    "vip": "true",
    "_document": '{"_id":"cust-b","name":"Robert","vip":true}',
}
C_INSERT = {"_id": C_ID, "name": "Cy", "_document": '{"_id":' + C_ID + ',"name":"Cy"}'}
C_REPLACE = {"_id": C_ID, "name": "Cyrus", "_document": '{"_id":' + C_ID + ',"name":"Cyrus"}'}


def change(
    table: str,
    source_op: str,
    op: str,
    key: str,
    before: dict[str, Any] | None,
    after: dict[str, Any] | None,
    unset: list[str] | None,
    es: str,
    ts: str,
    sequence: str,
    cluster_time: str,
) -> dict[str, Any]:
    return {
        "table_key": table,
        "database_name": table.split(".")[0],
        "schema_name": None,
        "table_name": table.split(".")[1],
        "db_type": "mongodb",
        "source_op": source_op,
        "op": op,
        "key_columns": ["_id"],
        "primary_key": [key],
        "before_row": before,
        "after_row": after,
        "is_partial": unset is not None,
        "unset_columns": unset or [],
        "column_types": None,
        "source_ts": es,
        "sync_ts": ts,
        "event_sequence": sequence,
        "source_log_position": cluster_time,
    }


def test_change_log_rows(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select table_key, database_name, schema_name, table_name, db_type, source_op, op,
            to_json(primary_key_columns) as key_columns, primary_key,
            to_json(before_row) as before_row, to_json(after_row) as after_row, is_partial,
            to_json(unset_columns) as unset_columns, to_json(column_types) as column_types,
            date_format(source_ts, '{MS}') as source_ts, date_format(sync_ts, '{MS}') as sync_ts,
            event_sequence, source_log_position
        from cdc_lake_intermediate.int_cdc__change_log
        where source_format = 'drs_mongo'
        order by ordering_key""",
    )
    decode_json_columns(
        rows, "key_columns", "primary_key", "before_row", "after_row", "unset_columns"
    )
    ljx, shop = "ljx.ljx", "shop.customers"
    ljx_key, a_key = "64650cf67dc36a464e76e583", "65a1b2c3d4e5f60718293a4b"
    assert rows == [
        change(ljx, "insert", "insert", ljx_key, None, LJX_INSERT, None,
               "2023-05-17 09:18:31.439", "2023-05-17 09:18:31.576", "256", "1684344064:1"),
        change(ljx, "replace", "update", ljx_key, {"_id": LJX_ID}, LJX_REPLACE, None,
               "2023-05-17 09:32:31.831", "2023-05-17 09:32:31.961", "340", "1684344904:9"),
        change(ljx, "update", "update", ljx_key, {"_id": LJX_ID}, {"c1": "aaa"}, ["_document"],
               "2023-05-17 09:40:12.008", "2023-05-17 09:40:12.146", "386", "1684345365:1"),
        change(ljx, "update", "update", ljx_key, {"_id": LJX_ID}, {"column1": "aaa"},
               ["_document", "c1"],
               "2023-05-17 09:44:52.054", "2023-05-17 09:44:52.184", "414", "1684345648:1"),
        change(ljx, "doc", "delete", ljx_key, {"_id": LJX_ID}, None, None,
               "2023-05-17 09:54:12.747", "2023-05-17 09:54:12.869", "471", "1684346209:1"),
        change(shop, "insert", "insert", a_key, None, A_INSERT, None,
               "2024-01-02 03:04:05.000", "2024-01-02 03:04:05.120", "1001", "1704164645:1"),
        change(shop, "update", "update", a_key, {"_id": A_ID},
               {"age": '{"$numberInt":"31"}', "address.city": "Shanghai"},
               ["_document", "tags", "address"],
               "2024-01-02 03:04:06.000", "2024-01-02 03:04:06.120", "1002", "1704164646:9"),
        change(shop, "insert", "insert", "cust-b", None, B_INSERT, None,
               "2024-01-02 03:04:07.000", "2024-01-02 03:04:07.120", "1003", "1704164647:1"),
        change(shop, "update", "update", "cust-b", {"_id": "cust-b"},
               {"age": '{"$numberInt":"41"}'}, ["_document", "name"],
               "2024-01-02 03:04:07.500", "2024-01-02 03:04:07.620", "1004", "1704164647:9"),
        change(shop, "replace", "update", "cust-b", {"_id": "cust-b"}, B_REPLACE, None,
               "2024-01-02 03:04:08.000", "2024-01-02 03:04:08.120", "1005", "1704164647:10"),
        change(shop, "insert", "insert", "42", None, C_INSERT, None,
               "2024-01-02 03:04:09.000", "2024-01-02 03:04:09.120", "1006", "1704164649:1"),
        change(shop, "update", "update", "42", {"_id": C_ID}, {}, ["_document", "name"],
               "2024-01-02 03:04:10.000", "2024-01-02 03:04:10.120", "1007", "1704164650:1"),
        change(shop, "replace", "update", "42", {"_id": C_ID}, C_REPLACE, None,
               "2024-01-02 03:04:11.000", "2024-01-02 03:04:11.120", "1008", "1704164651:1"),
        change(shop, "doc", "delete", "42", {"_id": C_ID}, None, None,
               "2024-01-02 03:04:12.000", "2024-01-02 03:04:12.120", "1009", "1704164652:1"),
    ]  # fmt: skip


def test_current_state_folds_set_and_unset(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select table_key, primary_key, is_deleted, last_op, to_json(row_data) as row_data
        from cdc_lake.cdc_current_state
        where table_key in ('ljx.ljx', 'shop.customers')
        order by table_key, primary_key""",
    )
    states = [
        (r["table_key"], r["primary_key"], r["is_deleted"], r["last_op"], json.loads(r["row_data"]))
        for r in rows
    ]
    a_after_update = {
        key: value for key, value in A_INSERT.items() if key not in ("_document", "tags", "address")
    }
    a_after_update.update({"age": '{"$numberInt":"31"}', "address.city": "Shanghai"})
    assert states == [
        ("ljx.ljx", '["64650cf67dc36a464e76e583"]', True, "delete", {"_id": LJX_ID}),
        ("shop.customers", '["42"]', True, "delete", {"_id": C_ID}),
        ("shop.customers", '["65a1b2c3d4e5f60718293a4b"]', False, "update", a_after_update),
        ("shop.customers", '["cust-b"]', False, "update", B_REPLACE),
    ]  # fmt: skip


def test_bad_messages_are_kept_with_the_reason(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select source_op, rejection_reason, raw_value
        from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format = 'drs_mongo' order by source_file, source_position""",
    )
    assert [(row["source_op"], row["rejection_reason"]) for row in rows] == [
        (None, "not valid JSON, or nested over 1000 levels deep"),
        ("insert", "value is not MongoDB shell JSON: "
                   "ObjectId needs 24 hex digits, got 'xyz' (at offset 8)"),
        ("insert", "insert without _id: the document has no _id"),
        ("noop", "unknown recordType noop with op UPDATE"),
        ("update", "update with operators other than $set and $unset: $inc"),
        ("update", "update without where"),
        ("insert", "clusterTime is not seconds:increment: 1704164665"),
    ]  # fmt: skip
    assert rows[0]["raw_value"] == "this is not JSON"
    assert json.loads(rows[1]["raw_value"])["id"] == 2001
