"""End to end on Lindorm data subscription and Debezium JSON: landed messages -> dbt build.

`lindorm_json`: every example of the Lindorm document (seeds/samples/; the document's SQL table
`customers` has its key `id` declared by the var `lindorm_json_primary_keys`), and fixtures:
an HBase table with a column delete, a SQL table without a declared key, bad messages.
`debezium_json`: the bundled sample (the first lines of Flink's
debezium-data-schema-exclude.txt), fixtures (PostgreSQL with schemas and Kafka keys, MySQL
bare and out of order, tombstones, truncate, DDL, transaction markers, a heartbeat, Oracle
messages that name their table outside `source`, SQL Server with its hexadecimal LSNs and
Kafka Connect decimals, a logical decoding message, the MongoDB connector's 2.x and 1.x
documents, two connectors of one table (test_named_sources.py), bad messages)
and public Debezium files of udfs/tests/public_samples/, loaded before the one build. Of the
Paimon files only scenarios whose tables no other loaded file uses are taken (the others
reuse `test.product` with contradicting rows); Paimon's license comment lines are left out,
as its tests skip them; every other byte is as published. Every message names its
connector (`source.name`), so its tables' keys are `<connector>/db.table`.
"""

from __future__ import annotations

import base64
import json
import random
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import compiled_inline, decode_json_columns, format_rejections, query
from support.project import FIXTURES
from support.public_landings import PUBLIC

pytestmark = pytest.mark.spark

CHANGE_LOG = "cdc_lake_intermediate.int_cdc__change_log"
CURRENT_STATE = "cdc_lake.cdc_current_state"
REJECTED = "cdc_lake_intermediate.int_cdc__rejected_messages"
MS = "yyyy-MM-dd HH:mm:ss.SSS"


@pytest.fixture(scope="module")
def public_samples() -> Path:
    if not PUBLIC.is_dir():
        pytest.fail(
            f"the public Debezium samples are missing: {PUBLIC} (bundled with the tests, "
            "with their SOURCES.md) must exist for these tests"
        )
    return PUBLIC


def changes(cursor: Any, table_key: str) -> list[dict[str, Any]]:
    rows = query(
        cursor,
        f"""
        select op, source_op, db_type, to_json(primary_key_columns) as key_columns,
            primary_key, previous_primary_key, to_json(before_row) as before_row,
            to_json(after_row) as after_row, is_partial, to_json(unset_columns) as unset,
            date_format(source_ts, '{MS}') as source_ts, date_format(sync_ts, '{MS}') as sync_ts
        from {CHANGE_LOG}
        where table_key = '{table_key}'
        order by ordering_key""",
    )
    return decode_json_columns(
        rows, "key_columns", "primary_key", "previous_primary_key", "before_row", "after_row",
        "unset",
    )  # fmt: skip


def state(cursor: Any, table_key: str, live_only: bool = False) -> dict[str, Any]:
    """primary_key (as text) -> (is_deleted, last_op, row) of one table."""
    rows = query(
        cursor,
        f"""
        select primary_key, is_deleted, last_op, to_json(row_data) as row_data
        from {CURRENT_STATE}
        where table_key = '{table_key}' {"and not is_deleted" if live_only else ""}""",
    )
    return {
        row["primary_key"]: (
            row["is_deleted"],
            row["last_op"],
            json.loads(row["row_data"]) if row["row_data"] else None,
        )
        for row in rows
    }


def rejections(cursor: Any, source_format: str) -> list[str]:
    """The reasons of a format's rejected fixture messages (the public sets' are not ours)."""
    rows = format_rejections(cursor, source_format, "source_file not like '%public-landing%'")
    return [row["rejection_reason"] for row in rows]


def test_build_of_these_formats_succeeds(pipeline_build: Any) -> None:
    """The staging models, seeds and their data tests of both formats ran without error."""
    mine = {
        result.node.name: result.status
        for result in pipeline_build.result.results
        if any(name in result.node.name for name in ("lindorm", "debezium"))
    }
    assert len(mine) >= 20, mine
    assert all(status in ("success", "pass") for status in mine.values()), mine


# ---------------------------------------------------------------- Lindorm

LD_TS = "2016-06-09 16:56:51.807"
LD_SYNC = "2016-06-09 16:56:51.815"
ANNE = {"id": "1004", "first_name": "Anne", "last_name": "Kretchmar"}
ANNE_MARIE = {"id": "1004", "first_name": "Anne Marie", "last_name": "Kretchmar"}


def lindorm(op: str, source_op: str, key: list[str], before: Any, after: Any, **extra: Any):
    row = {
        "op": op, "source_op": source_op, "db_type": "lindorm", "key_columns": ["id"],
        "primary_key": key, "previous_primary_key": None, "before_row": before,
        "after_row": after, "is_partial": False, "unset": [], "source_ts": LD_TS,
        "sync_ts": LD_SYNC,
    }  # fmt: skip
    row.update(extra)
    return row


def test_lindorm_document_examples(pipeline_build: Any, cursor: Any) -> None:
    hbase_insert = {
        "op": "insert", "source_op": "c", "db_type": "hbase", "key_columns": ["ROW"],
        "primary_key": ["dXNlcjE="], "previous_primary_key": None, "before_row": None,
        "after_row": {"ROW": "dXNlcjE=", "f_name": "bHVja3k="}, "is_partial": False,
        "unset": [], "source_ts": "2024-09-02 06:33:53.727", "sync_ts": "2024-09-02 06:34:19.839",
    }  # fmt: skip
    assert changes(cursor, "ld-xxxx.default.customers") == [
        lindorm("update", "u", ["1004"], {"id": "1004", "name": "Jane"},
                {"id": "1004", "name": "Anne"}),
        lindorm("insert", "c", ["1004"], None, ANNE),
        lindorm("update", "u", ["1004"], ANNE_MARIE, ANNE),
        lindorm("delete", "d", ["1004"], ANNE_MARIE, None),
        # the column delete: last_name is gone from after
        lindorm("update", "u", ["1004"], ANNE_MARIE, {"id": "1004", "first_name": "Anne Marie"},
                is_partial=True, unset=["last_name"]),
        hbase_insert,
    ]  # fmt: skip
    [types] = query(
        cursor,
        f"""select to_json(column_types) as types from {CHANGE_LOG}
        where source_format = 'lindorm_json' and column_types is not null""",
    )
    assert json.loads(types["types"]) == {"id": "int32", "name": "string"}
    # The document's examples share one table: the SQL row (key id, the column delete applied
    # after the delete) and the HBase row (key ROW).
    assert state(cursor, "ld-xxxx.default.customers") == {
        '["1004"]': (False, "update", {"id": "1004", "first_name": "Anne Marie"}),
        '["dXNlcjE="]': (False, "insert", {"ROW": "dXNlcjE=", "f_name": "bHVja3k="}),
    }


def test_lindorm_hbase_column_delete(pipeline_build: Any, cursor: Any) -> None:
    user1 = {"ROW": "dXNlcjE=", "f_name": "bHVja3k=", "f_age": "MzA="}
    user1_31 = {**user1, "f_age": "MzE="}
    user1_no_age = {"ROW": "dXNlcjE=", "f_name": "bHVja3k="}
    user2 = {"ROW": "dXNlcjI=", "f_name": "5byg5LiJ"}
    rows = [
        (r["op"], r["primary_key"], r["before_row"], r["after_row"], r["is_partial"], r["unset"])
        for r in changes(cursor, "ld-test.default.users")
    ]
    assert rows == [
        ("insert", ["dXNlcjE="], None, user1, False, []),
        ("update", ["dXNlcjE="], user1, user1_31, True, []),
        ("update", ["dXNlcjE="], user1_31, user1_no_age, True, ["f_age"]),
        ("insert", ["dXNlcjI="], None, user2, False, []),
        ("delete", ["dXNlcjI="], user2, None, False, []),
    ]
    assert state(cursor, "ld-test.default.users") == {
        '["dXNlcjE="]': (False, "update", user1_no_age),
        '["dXNlcjI="]': (True, "delete", user2),
    }
    # The documented way to read an HBase value as text (macro lindorm_text).
    [decoded] = query(
        cursor,
        f"""select decode(try_to_binary(row_data['f_name'], 'base64'), 'UTF-8') as name
        from {CURRENT_STATE} where table_key = 'ld-test.default.users' and is_deleted""",
    )
    assert decoded == {"name": "张三"}


def test_lindorm_sql_table_without_declared_key(pipeline_build: Any, cursor: Any) -> None:
    """The whole row is the identity: every update ends the old row and starts a new one."""
    rows = [
        (r["op"], r["key_columns"], r["primary_key"], r["previous_primary_key"], r["is_partial"])
        for r in changes(cursor, "ld-test.default.events")
    ]
    assert rows == [
        ("insert", ["id", "kind", "note"], ["1", "click", "first"], None, False),
        ("update", ["id", "kind", "note"], ["1", "view", "first"], ["1", "click", "first"], False),
        ("update", ["id", "kind"], ["1", "view"], ["1", "view", "first"], True),
    ]
    assert state(cursor, "ld-test.default.events", live_only=True) == {
        '["1","view"]': (False, "update", {"id": "1", "kind": "view"}),
    }


def test_lindorm_rejected_messages(pipeline_build: Any, cursor: Any) -> None:
    assert rejections(cursor, "lindorm_json") == [
        "NULL message value (a Kafka tombstone): Lindorm documents none",
        "not valid JSON, or nested over 1000 levels deep",
        "no payload.op: not a Lindorm message",
        "unknown payload.op x",
        "u without payload.after",
        "d without payload.before",
        "c without payload.source.table",
        "u without payload.before on a table without a declared key: the row it changes"
        " cannot be found",
        "JSON not shaped like a Lindorm message (a field has the wrong type)",
    ]


# ---------------------------------------------------------------- Debezium


def test_debezium_postgres_with_schemas_and_kafka_keys(pipeline_build: Any, cursor: Any) -> None:
    order_1 = {"id": "1", "status": "new", "receipt": "AAEC", "created": "19725"}
    order_2 = {"id": "2", "status": "new", "receipt": None, "created": "19726"}
    rows = [
        (r["op"], r["key_columns"], r["primary_key"], r["before_row"], r["after_row"])
        for r in changes(cursor, "pg/shop.public.orders")
    ]
    assert rows == [
        ("snapshot", ["id"], ["1"], None, order_1),
        ("insert", ["id"], ["2"], None, order_2),
        # REPLICA IDENTITY DEFAULT: no before, but the Kafka key identifies the row
        ("update", ["id"], ["1"], None, {**order_1, "status": "paid"}),
        ("delete", ["id"], ["2"], {"id": "2", "status": None, "receipt": None, "created": None},
         None),
    ]  # fmt: skip
    [meta] = query(
        cursor,
        f"""select to_json(column_types) as types, source_log_position, transaction_id,
            event_sequence
        from {CHANGE_LOG} where table_key = 'pg/shop.public.orders' and op = 'insert'""",
    )
    assert json.loads(meta.pop("types")) == {
        "id": "int32", "status": "string", "receipt": "bytes", "created": "io.debezium.time.Date",
    }  # fmt: skip
    assert meta == {
        "source_log_position": "2000", "transaction_id": "701:2000", "event_sequence": "2000",
    }  # fmt: skip
    assert state(cursor, "pg/shop.public.orders") == {
        '["1"]': (False, "update", {**order_1, "status": "paid"}),
        '["2"]': (True, "delete", {"id": "2", "status": None, "receipt": None, "created": None}),
    }


def test_debezium_mysql_bare_out_of_order(pipeline_build: Any, cursor: Any) -> None:
    """Delivered update-before-insert; ordered by binlog position. The delete has no before."""
    rows = [
        (r["op"], r["primary_key"], r["before_row"], r["after_row"], r["source_ts"])
        for r in changes(cursor, "my/crm.customers")
    ]
    ann = {"id": "7", "name": "Ann", "balance": "10.5"}
    assert rows == [
        ("insert", ["7"], None, ann, "2024-01-03 00:00:00.000"),
        ("update", ["7"], ann, {**ann, "balance": "99.999999999999999999"},
         "2024-01-03 00:01:00.000"),
        ("insert", ["8"], None, {"id": "8", "name": "Bob", "balance": "0"},
         "2024-01-03 00:02:00.000"),
        ("delete", ["8"], None, None, "2024-01-03 00:03:00.000"),
    ]  # fmt: skip
    assert state(cursor, "my/crm.customers") == {
        '["7"]': (False, "update", {**ann, "balance": "99.999999999999999999"}),
        # The delete sent no before image: the tombstone keeps the row as it was.
        '["8"]': (True, "delete", {"id": "8", "name": "Bob", "balance": "0"}),
    }


def test_debezium_tombstones_markers_ddl_truncate(pipeline_build: Any, cursor: Any) -> None:
    heartbeats = query(
        cursor,
        f"""
        select date_format(heartbeat_at, '{MS}') as heartbeat_at,
            date_format(sync_ts, '{MS}') as sync_ts, kafka_topic, kafka_offset
        from cdc_lake_intermediate.int_cdc__heartbeats
        where source_format = 'debezium_json' order by sync_ts""",
    )
    assert heartbeats == [
        {"heartbeat_at": "2024-01-03 00:05:30.000", "sync_ts": "2024-01-03 00:05:30.000",
         "kafka_topic": None, "kafka_offset": None},
    ]  # fmt: skip
    # the Kafka tombstones after the two deletes: staged as `tombstone`, counted, neither
    # changes, heartbeats nor rejected
    tombstones = query(
        cursor,
        """select event_kind, kafka_topic, kafka_offset
        from cdc_lake_intermediate.int_cdc__staged_events
        where source_format = 'debezium_json' and source_op = 'tombstone'
        order by kafka_topic desc""",
    )
    assert tombstones == [
        {"event_kind": "tombstone", "kafka_topic": "server1.testDB.dbo.customers",
         "kafka_offset": 5},
        {"event_kind": "tombstone", "kafka_topic": "pg.public.orders", "kafka_offset": 14},
        {"event_kind": "tombstone", "kafka_topic": "my.crm.customers", "kafka_offset": 24},
        {"event_kind": "tombstone", "kafka_topic": "fulfillment.mongo_inventory.customers",
         "kafka_offset": 5},
    ]  # fmt: skip
    markers = query(
        cursor,
        """select marker, transaction_id from cdc_lake_intermediate.int_cdc__transaction_markers
        where source_format = 'debezium_json' order by ordering_key""",
    )
    assert markers == [
        {"marker": "begin", "transaction_id": "571:53195829"},
        {"marker": "end", "transaction_id": "571:53195829"},
    ]
    ddl = query(
        cursor,
        """select ddl_op, table_key, ddl_text from cdc_lake_intermediate.int_cdc__schema_changes
        where source_format = 'debezium_json' order by ordering_key""",
    )
    assert ddl == [
        {"ddl_op": "t", "table_key": "my/crm.scratch", "ddl_text": None},
        {"ddl_op": "ddl", "table_key": "my/crm.scratch",
         "ddl_text": "ALTER TABLE scratch ADD COLUMN w int"},
        # fixture 11: one of two connectors of one table truncates its own (test_named_sources)
        {"ddl_op": "t", "table_key": "inventory-west/inventory.customers", "ddl_text": None},
    ]  # fmt: skip
    assert state(cursor, "my/crm.scratch") == {
        '["1","a"]': (True, "truncate", {"id": "1", "v": "a"}),
    }


def test_debezium_rejected_messages(pipeline_build: Any, cursor: Any) -> None:
    assert rejections(cursor, "debezium_json") == [
        # 06: a connector named outside the rule for source names (`east coast/1`)
        'source name is not 1 to 64 letters, digits, ".", "_" or "-"',
        # 07, 08: the MongoDB connector's (below)
        "after is not MongoDB Extended JSON: expected a value, found the end of the input"
        " (at offset 24)",
        "patch with operators other than $set and $unset: $inc",
        # 99
        "not valid JSON, or nested over 1000 levels deep",
        "JSON not shaped like a Debezium message (a field has the wrong type)",
        "unknown op x",
        "c without after",
        "c without a table (in source, the envelope schema or the topic)",
        "d without before and without a Kafka key: the deleted row is unknown",
        "u without before on a table without a key (no Kafka key, none configured): the row it"
        " changes cannot be found (PostgreSQL sends before only with REPLICA IDENTITY FULL)",
        "no op: not a Debezium change event, schema change, transaction marker or heartbeat",
    ]


def test_debezium_sql_server_ordered_by_commit_and_change_lsn(
    pipeline_build: Any, cursor: Any
) -> None:
    """SQL Server's LSNs are hexadecimal (`0000002a:...` after `00000029:...`): a transaction's
    second update delivered first, and an insert committed before it delivered after it,
    still apply in log order; Kafka Connect Decimal bytes (`AMc=`, scale 2) are decimals."""
    sally = {"id": "1001", "first_name": "Sally", "email": "sally@example.com", "balance": "1.99"}
    moved = {**sally, "email": "sally.t@example.com"}
    anne = {"id": "1005", "first_name": "Anne", "email": "anne@example.com", "balance": "0.00"}
    rows = [
        (r["op"], r["primary_key"], r["before_row"], r["after_row"])
        for r in changes(cursor, "server1/testdb.dbo.customers")
    ]
    assert rows == [
        ("snapshot", ["1001"], None, sally),
        ("insert", ["1005"], None, anne),
        ("update", ["1001"], sally, moved),
        ("update", ["1001"], moved, {**moved, "balance": "101.75"}),
        ("delete", ["1005"], anne, None),
    ]
    [meta] = query(
        cursor,
        f"""select to_json(column_types) as types, source_log_position
        from {CHANGE_LOG} where table_key = 'server1/testdb.dbo.customers' and op = 'insert'""",
    )
    assert json.loads(meta["types"]) == {
        "id": "int32", "first_name": "string", "email": "string", "balance": "decimal(10,2)",
    }  # fmt: skip
    assert meta["source_log_position"] == "00000029:00000a10:0003"
    assert state(cursor, "server1/testdb.dbo.customers") == {
        '["1001"]': (False, "update", {**moved, "balance": "101.75"}),
        '["1005"]': (True, "delete", anne),
    }


def test_kafka_connect_decimal_bytes_read_as_decimal_text(cursor: Any, tmp_path: Path) -> None:
    """Macro debezium_decimal_text against Python's reading of two's-complement bytes: signs,
    every length to 16 bytes (decimal(38)), scales 0 to 38; NULL (the caller keeps the text)
    for text that is not base64, more than 16 bytes, a scale outside 0..38, or beyond 38
    digits."""
    rng = random.Random(13)
    cases: list[tuple[str, str, str | None]] = []
    for length in range(1, 17):
        for _ in range(6):
            value = rng.randrange(-(2 ** (8 * length - 1)), 2 ** (8 * length - 1))
            scale = rng.choice([0, 1, 2, 5, 18, 38])
            digits = str(abs(value)).rjust(scale + 1, "0")
            text = digits[: len(digits) - scale] + ("." + digits[-scale:] if scale else "")
            fits = abs(value) < 10**38
            encoded = base64.b64encode(value.to_bytes(length, "big", signed=True)).decode()
            cases.append((encoded, str(scale), ("-" if value < 0 else "") + text if fits else None))
    cases += [
        ("AMc=", "2", "1.99"), ("/w==", "3", "-0.001"), ("AA==", "2", "0.00"),
        ("gA==", "0", "-128"), ("not base64!", "2", None), ("", "2", None),
        (base64.b64encode(bytes(17)).decode(), "0", None), ("AMc=", "39", None),
        ("AMc=", "-1", None), ("AMc=", "x", None),
    ]  # fmt: skip
    rows = " union all ".join(
        f"select {i} as i, '{encoded}' as encoded, '{scale}' as scale"
        for i, (encoded, scale, _) in enumerate(cases)
    )
    expression = compiled_inline("{{ debezium_decimal_text('encoded', 'scale') }}", tmp_path)
    got = query(cursor, f"select i, {expression} as text from ({rows}) order by i")
    assert [row["text"] for row in got] == [expected for _, _, expected in cases]


def test_a_table_named_outside_source_is_found_in_the_schema_name_then_the_topic(
    pipeline_build: Any, cursor: Any
) -> None:
    """Oracle messages without `source.table` (fixture 04): the envelope schema name
    `server1.DEBEZIUM.CUSTOMERS.Envelope` wins over a topic a router renamed; a bare message
    takes the last part of its topic `server1.DEBEZIUM.ORDERS` (its database and schema, and
    its source `server1`, from the message)."""
    assert state(cursor, "server1/orclpdb1.debezium.customers") == {
        '["1"]': (False, "insert", {"ID": "1", "NAME": "Ann"}),
    }
    assert state(cursor, "server1/orclpdb1.debezium.orders") == {
        '["5"]': (False, "insert", {"ID": "5", "TOTAL": "9.50"}),
    }


def test_a_logical_decoding_message_is_counted_and_kept_not_rejected(
    pipeline_build: Any, cursor: Any
) -> None:
    """Fixture 05: a PostgreSQL logical decoding message (Debezium's documented example)."""
    staged = query(
        cursor,
        """select event_kind, source_op, op, rejection_reason, raw_value
        from cdc_lake_staging.stg_debezium__json where source_op = 'm'""",
    )
    [line] = (
        (FIXTURES / "debezium_json" / "05_postgres_logical_message.jsonl").read_text().splitlines()
    )
    assert staged == [
        {"event_kind": "logical_message", "source_op": "m", "op": None,
         "rejection_reason": None, "raw_value": line},
    ]  # fmt: skip
    outcomes = query(
        cursor,
        """select outcome, logical_message_rows, rejected_rows
        from cdc_lake_intermediate.int_cdc__message_accounting
        where source_file like '%/05_postgres_logical_message.jsonl'""",
    )
    assert outcomes == [
        {"outcome": "logical_message", "logical_message_rows": 1, "rejected_rows": 0}
    ]


def test_debezium_numbers_keep_their_spelling(pipeline_build: Any, cursor: Any) -> None:
    """Fixture 09: a MySQL row with decimals sent as JSON numbers (decimal.handling.mode
    double writes them so): the row holds the digits as sent."""
    assert list(state(cursor, "numbers/numbers.prices").values()) == [
        (False, "insert", {
            "id": "1", "price": "1.50", "ratio": "1E+3", "fine": "0.1234567890123456789",
            "plain": "3.25",
        }),
    ]  # fmt: skip


def test_debezium_mongodb_connector_2x(pipeline_build: Any, cursor: Any) -> None:
    """Fixture 07 (kcat, Kafka keys `{"id": <the _id as Extended JSON>}`): documents as
    Extended JSON strings, an update as `updateDescription` alone (capture mode
    change_streams) and with the whole `after` (update_full), a delete known by its key
    alone, an ObjectId key, a dotted path set, a field removed, an array truncated, a
    snapshot row, a document that is not JSON (rejected, above)."""
    document = {"_id": {"$numberLong": "1004"}, "first_name": "Anne Marie",
                "last_name": "Kretchmar", "email": "anne.marie@noanswer.org"}  # fmt: skip
    assert state(cursor, "fulfillment/mongo_inventory.customers") == {
        '["1004"]': (False, "update", {
            "_id": "1004", "first_name": "Anne Marie", "last_name": "Kretchmar",
            "email": "anne.marie@noanswer.org",
            "_document": json.dumps(document, separators=(",", ":")),
        }),
        '["1005"]': (True, "delete", {
            "_id": "1005", "first_name": "Edward", "last_name": "Walker",
            "email": "ed@walker.com",
            "_document": '{"_id":{"$numberLong":"1005"},"first_name":"Edward",'
            '"last_name":"Walker","email":"ed@walker.com"}',
        }),
        '["2000"]': (False, "snapshot", {
            "_id": "2000", "first_name": "Snap", "visits": '{"$numberLong":"7"}',
            "_document": '{"_id":{"$numberLong":"2000"},"first_name":"Snap",'
            '"visits":{"$numberLong":"7"}}',
        }),
        # address.city set: address is unset (stale), as are nickname (removed), tags
        # (truncated) and the whole document; the decimal keeps its spelling.
        '["5f9b2c3e8a1d4e0012345678"]': (False, "update", {
            "_id": "5f9b2c3e8a1d4e0012345678", "name": "Lisbon store",
            "address.city": "Paris", "price": '{"$numberDecimal":"2.50"}',
        }),
    }  # fmt: skip
    keys = {row["primary_key_columns"] for row in query(
        cursor,
        """select distinct to_json(primary_key_columns) as primary_key_columns
        from cdc_lake_intermediate.int_cdc__change_log
        where table_key like '%/mongo_%.customers'""",
    )}  # fmt: skip
    assert keys == {'["_id"]'}


def test_debezium_mongodb_connector_1x(pipeline_build: Any, cursor: Any) -> None:
    """Fixture 08 (no Kafka key): `patch` as an update document (`$set`, `$unset`) and as a
    whole replacement document, `filter` naming the `_id` of updates and deletes."""
    assert state(cursor, "legacy/mongo_legacy.customers") == {
        '["1005"]': (False, "update", {
            "_id": "1005", "first_name": "Robert", "city": "Oslo",
            "_document": '{"_id":{"$numberLong":"1005"},"first_name":"Robert","city":"Oslo"}',
        }),
        '["1006"]': (True, "delete", {
            "_id": "1006", "first_name": "Gone",
            "_document": '{"_id":{"$numberLong":"1006"},"first_name":"Gone"}',
        }),
    }  # fmt: skip
    assert [(row["op"], row["is_partial"], row["after_row"], row["unset"]) for row in changes(
        cursor, "legacy/mongo_legacy.customers"
    ) if row["primary_key"] == ["1005"]][1] == (
        "update", True, {"first_name": "Bobby"}, ["_document", "email"]
    )  # fmt: skip


# ---------------------------------------------------------------- public Debezium samples


def by_id(rows: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Live rows of a whole-row-keyed table, by their `id` column."""
    return {row["id"]: row for deleted, _, row in rows.values() if not deleted}


def test_flink_debezium_schema_exclude_final_state(
    public_samples: Path, pipeline_build: Any, cursor: Any
) -> None:
    """EXPECTED.md §2: the 10 rows of the derived final state (FLOAT artefacts as sent)."""
    rows = by_id(state(cursor, "dbserver1/inventory.products"))
    assert {key: (row["name"], row["description"], row["weight"]) for key, row in rows.items()} == {
        "101": ("scooter", "Small 2-wheel scooter", "3.140000104904175"),
        "102": ("car battery", "12V car battery", "8.100000381469727"),
        "103": ("12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3",
                "0.800000011920929"),
        "104": ("hammer", "12oz carpenter's hammer", "0.75"),
        "105": ("hammer", "14oz carpenter's hammer", "0.875"),
        "106": ("hammer", "18oz carpenter hammer", "1"),
        "107": ("rocks", "box of assorted rocks", "5.099999904632568"),
        "108": ("jacket", "water resistent black wind breaker", "0.10000000149011612"),
        "109": ("spare tire", "24 inch spare tire", "22.200000762939453"),
        "110": ("jacket", "new water resistent white wind breaker", "0.5"),
    }  # fmt: skip
    ops = query(
        cursor,
        f"""select op, count(*) as n from {CHANGE_LOG}
        where table_key = 'dbserver1/inventory.products'
        group by op order by op""",
    )
    # 9 snapshot rows (op c with source.snapshot true), 2 inserts, 4 updates, 1 delete; the
    # bundled sample's three messages are the same events (same event_id), kept once.
    assert ops == [
        {"op": "delete", "n": 1},
        {"op": "insert", "n": 2},
        {"op": "snapshot", "n": 9},
        {"op": "update", "n": 4},
    ]


def test_flink_debezium_postgres_replica_identity_default(
    public_samples: Path, pipeline_build: Any, cursor: Any
) -> None:
    """EXPECTED.md §2: Flink refuses the updates without before. Here each is rejected with
    the reason (the table has no key), so the state keeps the 11 rows as last fully known."""
    rows = query(
        cursor,
        f"""select source_op, rejection_reason from {REJECTED}
        where source_file like '%debezium-postgres-data-replica-identity%'
        order by source_position""",
    )
    no_key = (
        "u without before on a table without a key (no Kafka key, none configured): the row it"
        " changes cannot be found (PostgreSQL sends before only with REPLICA IDENTITY FULL)"
    )
    assert rows == [{"source_op": "u", "rejection_reason": no_key}] * 4 + [
        {"source_op": "d",
         "rejection_reason": "d without before and without a Kafka key: the deleted row is unknown"}
    ]  # fmt: skip
    live = by_id(state(cursor, "fullfillment/postgres.inventory.products"))
    assert {key: row["weight"] for key, row in live.items()} == {
        "101": "3.14", "102": "8.1", "103": "0.8", "104": "0.75", "105": "0.875", "106": "1.0",
        "107": "5.3", "108": "0.1", "109": "22.2", "110": "0.2", "111": "5.18",
    }  # fmt: skip


def test_paimon_debezium_schema_evolution_final_state(
    public_samples: Path, pipeline_build: Any, cursor: Any
) -> None:
    """EXPECTED.md §5 after file 3: 102, 103 (age 18), 104 (age 24), 105 (Beijing), 107.
    The update of 105 has the partial before {"address": "Shanghai"}: the other columns are
    taken as unchanged, so it ends the inserted Shanghai row."""
    live = by_id(state(cursor, "paimon/test.product"))  # loaded as source `paimon`
    assert live == {
        "102": {"id": "102", "name": "car battery", "description": "12V car battery",
                "weight": "8.1"},
        "103": {"id": "103", "name": "12-pack drill bits",
                "description": "12-pack of drill bits with sizes ranging from #40 to #3",
                "weight": "0.8", "age": "18"},
        "104": {"id": "104", "name": "hammer", "description": "12oz carpenter's hammer",
                "weight": "0.75", "age": "24"},
        "105": {"id": "105", "name": "hammer", "description": "14oz carpenter's hammer",
                "weight": "0.875", "address": "Beijing"},
        "107": {"id": "107", "name": "rocks", "description": "box of assorted rocks",
                "weight": "5.3"},
    }  # fmt: skip


def test_paimon_debezium_other_tables(
    public_samples: Path, pipeline_build: Any, cursor: Any
) -> None:
    assert by_id(state(cursor, "mysql_binlog_source/test.test")) == {
        "1": {"id": "1", "value": "A"},
        "2": {"id": "2", "value": "B"},
    }
    for table, row_id in [("paimon_1", "101"), ("paimon_2", "102"), ("ignore", "103"),
                          ("flink", "104")]:  # fmt: skip
        assert list(by_id(state(cursor, f"mysql_binlog_source/test.{table}"))) == [row_id]
    # With the schema part: op r, every MySQL type; bytes stay base64, logical types named.
    # Its decimals are JSON numbers (the converter's decimal.format=NUMERIC): kept as sent.
    [row] = query(
        cursor,
        f"""select op, size(after_row) as columns, after_row['_bit'] as bits,
            after_row['_blob'] as blob, after_row['pt'] as pt, column_types['pt'] as pt_type,
            column_types['_date'] as date_type, after_row['_date'] as date_value
        from {CHANGE_LOG}
        where table_key = 'mysql_binlog_source/paimon_sync_table.all_types_table'""",
    )
    assert row == {
        "op": "snapshot", "columns": 78, "bits": "xwcAAAAAAAA=",
        "blob": "QkxPQiB0eXBlIHRlc3QgZGF0YQ==", "pt": "1.1",
        "pt_type": "decimal(2,1)", "date_type": "io.debezium.time.Date", "date_value": "19439",
    }  # fmt: skip
