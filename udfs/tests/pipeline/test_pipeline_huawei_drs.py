"""End to end on Huawei DRS JSON and JSON-C: landed samples -> dbt build -> tables.

seeds/samples/drs_json/ holds the two example messages of the document's JSON part (the
MySQL update and the GaussDB primary/standby update), byte for byte as JSON, one per line:
both are valid JSON as printed, so nothing had to be fixed. The JSON-C part has no example
message of its own: seeds/samples/drs_json_c/ is the JSON part's MySQL example rewritten by the
two differences the JSON-C part states (the `timestamp` column c5 as text; a delete carries its
row in `data`), on table `test_c` so that it does not mix with the JSON sample's table. The
fixtures (udfs/tests/fixtures/drs_json*/) add multi-row messages, the full synchronization
(INIT_DDL, INIT), a table without a key, Oracle and PostgreSQL messages, a TRUNCATE statement,
out-of-order delivery and bad messages. The expected rows below are worked out by hand. The
nodes built are checked with other formats' in test_formats.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest
from support.pipeline import current_state, decode_json_columns, query, state_row
from support.project import FIXTURES, SAMPLES

pytestmark = pytest.mark.spark

CHANGE_LOG = "cdc_lake_intermediate.int_cdc__change_log"
MS = "yyyy-MM-dd HH:mm:ss.SSS"
DRS_FORMATS = "('drs_json', 'drs_json_c')"


def sample(path: str) -> dict[str, Any]:
    return json.loads((SAMPLES / path).read_text(encoding="utf-8"))


def byte_list_base64(text: str) -> str:
    """What the staging model must make of a DRS byte list, computed without Spark."""
    items = [int(item) for item in text.strip("[]").split(",") if item.strip()]
    return base64.b64encode(bytes(item & 0xFF for item in items)).decode("ascii")


# ---------------------------------------------------------------- the vendor examples

MYSQL_EXAMPLE = sample("drs_json/01_mysql_update.jsonl")
GAUSSDB_EXAMPLE = sample("drs_json/02_gaussdb_primary_standby_update.jsonl")
BINARY_COLUMNS = ("c11", "c12", "c14", "c2")  # binary, varbinary, blob, varbinary


def mysql_row(sent: dict[str, str], c5: str) -> dict[str, str]:
    """A row of the MySQL example as canonical text: byte lists to base64, c5 as given."""
    row = {**sent, "c5": c5}
    for column in BINARY_COLUMNS:
        row[column] = byte_list_base64(sent[column])
    return row


# c5 is a MySQL `timestamp`: JSON sends epoch seconds 1624614713.201 (= 17:51:53.201 at +08,
# the c4 datetime of the same row), kept to the digits sent; JSON-C sends text, kept as sent.
JSON_C5 = "2021-06-25 09:51:53.201"
JSON_C_C5 = "2021-06-25 17:51:53"
MYSQL_BEFORE = mysql_row(MYSQL_EXAMPLE["old"][0], JSON_C5)
MYSQL_AFTER = mysql_row(MYSQL_EXAMPLE["data"][0], JSON_C5)
MYSQL_C_BEFORE = mysql_row(MYSQL_EXAMPLE["old"][0], JSON_C_C5)
MYSQL_C_AFTER = mysql_row(MYSQL_EXAMPLE["data"][0], JSON_C_C5)
MYSQL_TYPES = MYSQL_EXAMPLE["mysqlType"]

# GaussDB: pkNames null, so the whole row (columns sorted by name) is the identity; bytea hex
# 62797465615f64617461 is "bytea_data".
GAUSS_BYTEA = base64.b64encode(b"bytea_data").decode()
GAUSS_BEFORE = {**GAUSSDB_EXAMPLE["old"][0], "bytea_column": GAUSS_BYTEA}
GAUSS_AFTER = {**GAUSSDB_EXAMPLE["data"][0], "bytea_column": GAUSS_BYTEA}
GAUSS_KEY_COLUMNS = sorted(GAUSS_AFTER)


def change(
    fmt: str, op: str, source_op: str, table_key: str, key_columns: list[str], key: list, **extra
) -> dict[str, Any]:
    row = {
        "source_format": fmt,
        "op": op,
        "source_op": source_op,
        "table_key": table_key,
        "primary_key_columns": key_columns,
        "primary_key": key,
        "previous_primary_key": None,
        "before_row": None,
        "after_row": None,
        "row_index": 0,
    }
    row.update(extra)
    return row


# fmt: off
EXPECTED_SAMPLE_CHANGES = [
    {**change("drs_json", "update", "UPDATE", "database01.schema01.table01", GAUSS_KEY_COLUMNS,
              [GAUSS_AFTER[c] for c in GAUSS_KEY_COLUMNS],
              previous_primary_key=[GAUSS_BEFORE[c] for c in GAUSS_KEY_COLUMNS],
              before_row=GAUSS_BEFORE, after_row=GAUSS_AFTER),
     "db_type": "gaussdb", "column_types": GAUSSDB_EXAMPLE["columnType"],
     "source_ts": "2021-12-16 03:43:07.000", "sync_ts": "2021-12-16 04:34:21.915",
     "event_sequence": "332"},
    # The table is sent as "test ": MySQL names cannot end with a space, so it is dropped.
    {**change("drs_json", "update", "UPDATE", "test01.test", ["id"], ["104"],
              previous_primary_key=["103"], before_row=MYSQL_BEFORE, after_row=MYSQL_AFTER),
     "db_type": "mysql", "column_types": MYSQL_TYPES,
     "source_ts": "2021-06-25 09:51:53.000", "sync_ts": "2021-06-30 13:12:06.990",
     "event_sequence": "27677"},
    {**change("drs_json_c", "update", "UPDATE", "test01.test_c", ["id"], ["104"],
              previous_primary_key=["103"], before_row=MYSQL_C_BEFORE, after_row=MYSQL_C_AFTER),
     "db_type": "mysql", "column_types": MYSQL_TYPES,
     "source_ts": "2021-06-25 09:51:53.000", "sync_ts": "2021-06-30 13:12:06.990",
     "event_sequence": "27677"},
    # JSON-C: the deleted row is in `data`.
    {**change("drs_json_c", "delete", "DELETE", "test01.test_c", ["id"], ["104"],
              before_row=MYSQL_C_AFTER),
     "db_type": "mysql", "column_types": MYSQL_TYPES,
     "source_ts": "2021-06-25 09:51:54.000", "sync_ts": "2021-06-30 13:12:07.990",
     "event_sequence": "27678"},
]
# fmt: on

CHANGE_COLUMNS = """
    source_format, op, source_op, table_key, to_json(primary_key_columns) as primary_key_columns,
    primary_key, previous_primary_key, to_json(before_row) as before_row,
    to_json(after_row) as after_row, row_index"""
JSON_COLUMNS = ("primary_key_columns", "primary_key", "previous_primary_key")
IMAGE_COLUMNS = ("before_row", "after_row")


def test_change_log_rows_of_the_vendor_examples(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select {CHANGE_COLUMNS}, db_type, to_json(column_types) as column_types,
            date_format(source_ts, '{MS}') as source_ts, date_format(sync_ts, '{MS}') as sync_ts,
            event_sequence
        from {CHANGE_LOG}
        where source_file like '%/seeds/samples/%' and source_format in {DRS_FORMATS}
        order by source_format, table_key, ordering_key""",
    )
    decoded = decode_json_columns(rows, *JSON_COLUMNS, *IMAGE_COLUMNS, "column_types")
    assert decoded == EXPECTED_SAMPLE_CHANGES


def test_values_of_the_mysql_example(pipeline_build: Any, cursor: Any) -> None:
    [row] = query(
        cursor,
        f"""select to_json(after_row) as after_row from {CHANGE_LOG}
        where source_format = 'drs_json' and table_key = 'test01.test'""",
    )
    after = json.loads(row["after_row"])
    assert after["c11"] == after["c2"] == ""  # "[]" is zero bytes
    assert base64.b64decode(after["c12"]).startswith(b"jgojgoidsjgojosog934094309")
    assert after["c5"] == "2021-06-25 09:51:53.201"
    assert (after["c4"], after["c7"], after["c8"], after["c9"]) == (
        "2021-06-25 17:51:53",  # datetime: kept as sent
        "10357.0",
        "1.2510357E7",  # numbers keep the text the source sent
        "9874510357",
    )


def test_current_state_of_the_vendor_examples(pipeline_build: Any, cursor: Any) -> None:
    tables = "('database01.schema01.table01', 'test01.test', 'test01.test_c')"
    gauss_before_key = [GAUSS_BEFORE[c] for c in GAUSS_KEY_COLUMNS]
    gauss_after_key = [GAUSS_AFTER[c] for c in GAUSS_KEY_COLUMNS]
    assert current_state(cursor, f"table_key in {tables}") == sorted(
        [
            # No key: the update ends the old row and starts a new one.
            state_row(
                "database01.schema01.table01", gauss_before_key, True, "update", GAUSS_BEFORE
            ),
            state_row("database01.schema01.table01", gauss_after_key, False, "update", GAUSS_AFTER),
            # The update changed the key 103 -> 104: the row ends under 103.
            state_row("test01.test", ["103"], True, "update", MYSQL_BEFORE),
            state_row("test01.test", ["104"], False, "update", MYSQL_AFTER),
            state_row("test01.test_c", ["103"], True, "update", MYSQL_C_BEFORE),
            state_row("test01.test_c", ["104"], True, "delete", MYSQL_C_AFTER),
        ],
        key=lambda r: (r["table_key"], json.dumps(r["primary_key"], separators=(",", ":"))),
    )


# ---------------------------------------------------------------- the fixtures

ORDER_1 = {
    "id": "1",
    "name": "a",
    "amount": "10.50",
    "payload": "/wB/",  # [-1, 0, 127]: signed bytes, as Java prints byte[]
    "created": "2021-06-25 09:51:53",  # epoch seconds without a fraction
    "updated": "2021-06-25 17:51:53",
}
ORDER_2 = {
    "id": "2",
    "name": None,
    "amount": "0.000",
    "payload": None,
    "created": "2021-06-25 09:51:53.201123",  # microseconds kept
    "updated": None,
}
ORDER_3 = {
    "id": "3",
    "name": "c",
    "amount": "12345678901234567890.0000000001",
    "payload": "",
    "created": "1970-01-01 00:00:00.5",
    "updated": "2021-06-25 17:51:54",
}
ORDER_1_UPDATED = {**ORDER_1, "name": "a2", "payload": "aGk="}  # [104, 105]
ORDER_20 = {**ORDER_2, "id": "20"}
EMP = {"ID": "7", "NAME": "Ann"}

# fmt: off
EXPECTED_FIXTURE_CHANGES = [
    # Oracle: BLOB (JDBC 2004, no type name sent) as a byte list; [-128] is 0x80.
    change("drs_json", "insert", "INSERT", "fixture_db.drs_emp", ["ID"], ["7"],
           after_row={**EMP, "PHOTO": "AQID"}),
    change("drs_json", "update", "UPDATE", "fixture_db.drs_emp", ["ID"], ["7"],
           before_row={**EMP, "PHOTO": "AQID"}, after_row={**EMP, "PHOTO": "gA=="}),
    # Loaded update-first: the order comes from the DRS id, not the file.
    change("drs_json", "insert", "INSERT", "fixture_db.drs_late", ["id"], ["7"],
           after_row={"id": "7", "name": "a"}),
    change("drs_json", "update", "UPDATE", "fixture_db.drs_late", ["id"], ["7"],
           before_row={"id": "7", "name": "a"}, after_row={"id": "7", "name": "b"}),
    change("drs_json", "insert", "INSERT", "fixture_db.drs_no_key", ["k", "v"], ["x", "1"],
           after_row={"k": "x", "v": "1"}),
    change("drs_json", "update", "UPDATE", "fixture_db.drs_no_key", ["k", "v"], ["x", "2"],
           previous_primary_key=["x", "1"], before_row={"k": "x", "v": "1"},
           after_row={"k": "x", "v": "2"}),
    change("drs_json", "insert", "INSERT", "fixture_db.drs_no_key", ["k", "v"], ["y", "1"],
           after_row={"k": "y", "v": "1"}),
    change("drs_json", "delete", "DELETE", "fixture_db.drs_no_key", ["k", "v"], ["y", "1"],
           before_row={"k": "y", "v": "1"}),
    # One INIT message of two rows: two snapshot changes.
    change("drs_json", "snapshot", "INIT", "fixture_db.drs_orders", ["id"], ["1"],
           after_row=ORDER_1),
    change("drs_json", "snapshot", "INIT", "fixture_db.drs_orders", ["id"], ["2"],
           after_row=ORDER_2, row_index=1),
    change("drs_json", "insert", "INSERT", "fixture_db.drs_orders", ["id"], ["3"],
           after_row=ORDER_3),
    # One UPDATE message of two rows: old[i] pairs with data[i]; the second changes the key.
    change("drs_json", "update", "UPDATE", "fixture_db.drs_orders", ["id"], ["1"],
           before_row=ORDER_1, after_row=ORDER_1_UPDATED),
    change("drs_json", "update", "UPDATE", "fixture_db.drs_orders", ["id"], ["20"],
           previous_primary_key=["2"], before_row=ORDER_2, after_row=ORDER_20, row_index=1),
    change("drs_json", "delete", "DELETE", "fixture_db.drs_orders", ["id"], ["3"],
           before_row=ORDER_3),
    change("drs_json", "insert", "INSERT", "fixture_db.drs_truncated", ["id"], ["1"],
           after_row={"id": "1"}),
    change("drs_json", "insert", "INSERT", "fixture_db.drs_truncated", ["id"], ["2"],
           after_row={"id": "2"}, row_index=1),
    # A DDL message whose sql is TRUNCATE: a truncate change (and a schema change).
    change("drs_json", "truncate", "DDL", "fixture_db.drs_truncated", ["id"], None),
    change("drs_json", "insert", "INSERT", "fixture_db.drs_truncated", ["id"], ["3"],
           after_row={"id": "3"}),
    # PostgreSQL bytea, with and without the \x prefix.
    change("drs_json", "insert", "INSERT", "fixture_db.public.drs_files", ["id"], ["1"],
           after_row={"id": "1", "body": "aGk="}),
    change("drs_json", "insert", "INSERT", "fixture_db.public.drs_files", ["id"], ["2"],
           after_row={"id": "2", "body": "aGk="}, row_index=1),
    change("drs_json", "delete", "DELETE", "fixture_db.public.drs_files", ["id"], ["2"],
           before_row={"id": "2", "body": "aGk="}),
]
# fmt: on


def test_change_log_rows_of_the_fixtures(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select {CHANGE_COLUMNS}
        from {CHANGE_LOG}
        where source_format in {DRS_FORMATS} and table_key like 'fixture_db.%'
        order by table_key, ordering_key""",
    )
    decoded = decode_json_columns(rows, *JSON_COLUMNS, *IMAGE_COLUMNS)
    assert decoded == EXPECTED_FIXTURE_CHANGES


def metadata(table_key: str, db_type: str, names: tuple, types: dict | None, **extra) -> dict:
    database_name, schema_name, table_name = names
    row = {
        "table_key": table_key,
        "db_type": db_type,
        "database_name": database_name,
        "schema_name": schema_name,
        "table_name": table_name,
        "column_types": types,
        "transaction_id": None,
        "source_log_position": None,
    }
    return row | extra


def test_fixture_metadata(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select table_key, db_type, database_name, schema_name, table_name,
            to_json(column_types) as column_types, event_sequence,
            date_format(source_ts, '{MS}') as source_ts, transaction_id, source_log_position
        from {CHANGE_LOG}
        where source_format = 'drs_json' and event_sequence in ('2', '300', '310', '401')
        order by event_sequence, row_index""",
    )
    orders_types = {
        "id": "int",
        "name": "varchar",
        "amount": "decimal",
        "payload": "varbinary",
        "created": "timestamp",
        "updated": "datetime",
    }
    orders = metadata(
        "fixture_db.drs_orders",
        "mysql",
        ("fixture_db", None, "drs_orders"),
        orders_types,
        event_sequence="2",
        source_ts="2023-11-14 22:13:21.000",
    )
    files = metadata(
        "fixture_db.public.drs_files",
        "postgresql",
        ("fixture_db", "public", "drs_files"),
        {"id": "integer", "body": "bytea"},
        event_sequence="310",
        source_ts="2023-11-14 22:13:42.000",
    )
    assert decode_json_columns(rows, "column_types") == [
        orders,  # INIT row 0
        orders,  # INIT row 1
        # Oracle: no database; columnType is empty, so the JDBC names of sqlType.
        metadata(
            "fixture_db.drs_emp",
            "oracle",
            ("", "FIXTURE_DB", "DRS_EMP"),
            {"ID": "NUMERIC", "NAME": "VARCHAR", "PHOTO": "BLOB"},
            event_sequence="300",
            source_ts="2023-11-14 22:13:40.000",
        ),
        files,
        files,
        # A DDL sends no columns.
        metadata(
            "fixture_db.drs_truncated",
            "mysql",
            ("fixture_db", None, "drs_truncated"),
            None,
            event_sequence="401",
            source_ts="2023-11-14 22:13:51.000",
        ),
    ]


def test_current_state_of_the_fixtures(pipeline_build: Any, cursor: Any) -> None:
    assert current_state(cursor, "table_key like 'fixture_db.drs_%'") == [
        state_row("fixture_db.drs_emp", ["7"], False, "update", {**EMP, "PHOTO": "gA=="}),
        state_row("fixture_db.drs_late", ["7"], False, "update", {"id": "7", "name": "b"}),
        state_row("fixture_db.drs_no_key", ["x", "1"], True, "update", {"k": "x", "v": "1"}),
        state_row("fixture_db.drs_no_key", ["x", "2"], False, "update", {"k": "x", "v": "2"}),
        state_row("fixture_db.drs_no_key", ["y", "1"], True, "delete", {"k": "y", "v": "1"}),
        state_row("fixture_db.drs_orders", ["1"], False, "update", ORDER_1_UPDATED),
        state_row("fixture_db.drs_orders", ["2"], True, "update", ORDER_2),
        state_row("fixture_db.drs_orders", ["20"], False, "update", ORDER_20),
        state_row("fixture_db.drs_orders", ["3"], True, "delete", ORDER_3),
        # Rows inserted before the TRUNCATE statement end with it; the later one stays.
        state_row("fixture_db.drs_truncated", ["1"], True, "truncate", {"id": "1"}),
        state_row("fixture_db.drs_truncated", ["2"], True, "truncate", {"id": "2"}),
        state_row("fixture_db.drs_truncated", ["3"], False, "insert", {"id": "3"}),
    ]
    assert current_state(cursor, "table_key like 'fixture_db.public.drs_%'") == [
        state_row(
            "fixture_db.public.drs_files", ["1"], False, "insert", {"id": "1", "body": "aGk="}
        ),
        state_row(
            "fixture_db.public.drs_files", ["2"], True, "delete", {"id": "2", "body": "aGk="}
        ),
    ]


def test_event_id_and_ordering_key(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select event_id, ordering_key, row_index from {CHANGE_LOG}
        where source_format = 'drs_json' and table_key = 'fixture_db.drs_orders'
            and event_sequence = '4'
        order by row_index""",
    )
    # (format, table, DRS id, row index): the same message loaded twice gets the same ids.
    assert [row["event_id"] for row in rows] == [
        hashlib.sha256(f"drs_json|fixture_db.drs_orders|4|{index}".encode()).hexdigest()[:32]
        for index in (0, 1)
    ]
    # id, es, ts, then (unknown) Kafka offset, load time and file position, then the row.
    prefix = "014.131700000003000.131700000003120.00."
    assert all(row["ordering_key"].startswith(prefix) for row in rows)
    assert [row["ordering_key"].split(".")[-1] for row in rows] == ["010", "011"]


def test_schema_changes(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, ddl_op, table_key, ddl_text, ddl_meta, event_sequence,
            date_format(source_ts, '{MS}') as source_ts
        from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format in {DRS_FORMATS}
        order by table_key, ordering_key""",
    )
    create = (
        "CREATE TABLE `drs_orders` (`id` int NOT NULL, `name` varchar(20), `amount` "
        "decimal(30,10), `payload` varbinary(16), `created` timestamp(6) NULL, `updated` "
        "datetime, PRIMARY KEY (`id`))"
    )
    assert rows == [
        {
            "source_format": "drs_json",
            "ddl_op": "init_ddl",
            "table_key": "fixture_db.drs_orders",
            "ddl_text": create,
            "ddl_meta": None,
            "event_sequence": "1",
            "source_ts": "2023-11-14 22:13:20.000",
        },
        {
            "source_format": "drs_json",
            "ddl_op": "ddl",
            "table_key": "fixture_db.drs_orders",
            "ddl_text": "ALTER TABLE `drs_orders` ADD COLUMN `note` varchar(10)",
            "ddl_meta": None,
            "event_sequence": "6",
            "source_ts": "2023-11-14 22:13:25.000",
        },
        {
            "source_format": "drs_json",
            "ddl_op": "ddl",
            "table_key": "fixture_db.drs_truncated",
            "ddl_text": "truncate table `drs_truncated`",
            "ddl_meta": None,
            "event_sequence": "401",
            "source_ts": "2023-11-14 22:13:51.000",
        },
    ]


def test_every_bad_message_is_kept_with_its_reason(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, rejection_reason, raw_value, source_file, kafka_offset
        from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format in {DRS_FORMATS}
        order by source_format, source_file, source_position""",
    )
    assert all("/udfs/tests/fixtures/" in row["source_file"] for row in rows)
    tombstone, *bad, json_c_delete = rows
    assert (tombstone["rejection_reason"], tombstone["raw_value"], tombstone["kafka_offset"]) == (
        "NULL message value: DRS sends no tombstones",
        None,
        9,
    )
    assert [row["rejection_reason"] for row in bad] == [
        "not valid JSON, or nested over 1000 levels deep",
        "JSON not shaped like a DRS message (a field has the wrong type)",
        "no type: not a DRS JSON message",
        "unknown type UPSERT",
        "type UPDATE and opType DELETE disagree",
        "id is not a sequence number: x906",
        "INSERT without table",
        "INSERT without data rows",
        "UPDATE with 2 data rows but 1 old rows",
        "DELETE without old rows",  # JSON: a delete's row is in old
        # A message is rejected whole, with the reason of its first bad row.
        "data[1]: binary column payload is not a byte list (item 1 is not an integer: 'x')",
        "old[0]: binary column payload is not a byte list "
        "(item 0 is out of the byte range -128..255: 300)",
        "data[0]: bytea column body is not hex",
        "no value for primary key column(s) id in data[0]",
        "INSERT with a null data[1]",
        "DDL without sql",
    ]
    lines = (FIXTURES / "drs_json/99_bad_messages.jsonl").read_text(encoding="utf-8")
    assert [row["raw_value"] for row in bad] == lines.splitlines()
    # JSON-C: a delete's row is in data; the JSON layout (row in old) is rejected.
    assert json_c_delete["source_format"] == "drs_json_c"
    assert json_c_delete["rejection_reason"] == "DELETE without data rows"
    # Nothing of a rejected message reaches the change log, not even its good first row.
    [count] = query(
        cursor,
        f"""select count(*) as n from {CHANGE_LOG}
        where source_format in {DRS_FORMATS} and table_key like '%.drs_bad'""",
    )
    assert count["n"] == 0
