"""The checks several formats share, written once and run for each: the session build ran the
format's nodes, its bad messages are kept with their reasons, a message delivered twice is one
first delivery, and the public sets that stream the same tables (Flink's `products` table,
Paimon's schema evolution cases) end where their expectations say (public_samples/EXPECTED.md).

What only one format has stays in its module (test_pipeline_<format>.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from support.pipeline import (
    assert_nodes_built,
    format_change_log,
    format_current_state,
    format_live_rows,
    format_rejections,
    query,
)
from support.project import FIXTURES
from support.public_landings import (
    FLINK_OGG_CHANGELOG,
    FLINK_OGG_FINAL_STATE,
    FLINK_PRODUCTS_CHANGELOG,
    FLINK_PRODUCTS_FINAL_STATE,
    as_flink_changelog,
    product,
    require_public_samples,
)

pytestmark = pytest.mark.spark

CANAL = ("canal_json", "dts_canal_json")
MAXWELL = ("maxwell_json",)
OGG = ("ogg_json",)
AWS_DMS = ("aws_dms_json",)
DRILLS = ("12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3")
SHAREPLEX_TUPLE_NODES = (
    "stg_aliyun_dts__shareplex_json",
    "stg_datahub__tuple",
    "aliyun_dts__shareplex_op_codes",
    "datahub__tuple_op_codes",
)


# ---------------------------------------------------------------- the build


@pytest.mark.parametrize(
    ("words", "required"),
    [
        pytest.param(
            ("canal",),
            (
                "stg_canal__json",
                "stg_aliyun_dts__canal_json",
                "canal__op_codes",
                # both layouts' dbt unit tests of _aliyun_dts__canal_json_unit_tests.yml
                "dts_canal_json_current_layout",
                "dts_canal_json_legacy_layout",
            ),
            id="canal",
        ),
        pytest.param(("maxwell",), ("stg_maxwell__json", "maxwell__op_codes"), id="maxwell"),
        pytest.param(("ogg",), ("stg_ogg__json", "ogg__op_codes"), id="ogg"),
        pytest.param(("aws_dms",), ("stg_aws_dms__json", "aws_dms__op_codes"), id="aws_dms"),
        pytest.param(
            ("huawei_drs",),
            ("stg_huawei_drs__json", "stg_huawei_drs__json_c", "huawei_drs__op_codes"),
            id="huawei_drs",
        ),
        pytest.param(SHAREPLEX_TUPLE_NODES, SHAREPLEX_TUPLE_NODES, id="shareplex_tuple"),
    ],
)
def test_the_build_ran_the_formats_nodes(
    pipeline_build: Any, words: tuple[str, ...], required: tuple[str, ...]
) -> None:
    assert_nodes_built(pipeline_build, words, *required)


# ---------------------------------------------------------------- our fixtures


# format -> (its fixture file of bad messages, their reasons in file order, how many of the
# format's messages from other files are rejected: public sets' only).
BAD_MESSAGES = {
    "maxwell_json": (
        "bad_messages.jsonl",
        [
            "not valid JSON, or nested over 1000 levels deep",
            "JSON not shaped like a Maxwell message (a field has the wrong type)",
            "no type: not a Maxwell message",
            "unknown type upsert",
            "insert without table",
            "delete without data",
            "no value for primary key column(s) id in the row image",
            "table-create without database",
        ],
        0,
    ),
    "ogg_json": (
        "bad_messages.jsonl",
        [
            "not valid JSON, or nested over 1000 levels deep",
            "JSON not shaped like a GoldenGate message (a field has the wrong type)",
            "no op_type: not a GoldenGate JSON message",
            "unknown op_type X",
            "I without table",
            "I with a table that is not SCHEMA.TABLE or CATALOG.SCHEMA.TABLE (an empty part, or"
            " more than three)",
            "D without before: the deleted row is unknown",
            "no value for primary key column(s) ID in the row image",
            "I without after",
            "I with no column in its row image",
            "table name is a JSON array or object, not text",
        ],
        1,  # Paimon's case-insensitive message (test_pipeline_ogg.py)
    ),
    "aws_dms_json": (
        "bad_messages.jsonl",
        [
            "not valid JSON, or nested over 1000 levels deep",
            "JSON not shaped like an AWS DMS message (a field has the wrong type)",
            "no metadata: not an AWS DMS message",
            "no record-type: not an AWS DMS message",
            "data record without operation",
            "unknown data operation upsert",
            "unknown heartbeat operation insert",
            "insert without table-name",
            "delete without data",
            "update without data",
            "no value for primary key column(s) id in the row image",
            "drop-table without table-name",
        ],
        0,
    ),
    "dts_shareplex_json": (
        "bad_messages.jsonl",
        [
            "not valid JSON, or nested over 1000 levels deep",
            "JSON not shaped like a SharePlex message (a field has the wrong type)",
            "no meta.op: not a SharePlex message",
            "unknown meta.op MERGE",
            "ins without meta.table",
            "meta.table A.B.C.D is not OWNER.TABLE",
            "ins without data",
            "upd without key: the row before the change is unknown",
            "del without data or key",
            "no value for primary key column(s) ID in the row image",
            "ins with no column in its row image",
            "UPDATE AFTER without key and without an UPDATE BEFORE: the row before the change"
            " is unknown",
            "UPDATE BEFORE without meta.trans or meta.seq cannot be paired with its UPDATE AFTER",
        ],
        0,
    ),
    "datahub_tuple": (
        "bad_rows.jsonl",
        [
            "not valid JSON, or nested over 1000 levels deep",
            "not a JSON object: a Tuple row is one object of fields",
            "no _operation_type_: not a DataHub Tuple row",
            "unknown _operation_type_ X",
            "I row without _source_table_",
            "_source_table_ a.b.c.d is not TABLE, DATABASE.TABLE or DATABASE.SCHEMA.TABLE",
            "_operation_type_ I with _before_image_ Y and _after_image_ N: the image flags do"
            " not match the operation",
            "_operation_type_ U with _before_image_ N and _after_image_ N: neither half of an"
            " update",
            "I row has no column besides the metadata columns",
            "no value for primary key column(s) id, name in the row image",
            "U row without _sequence_id_ cannot be paired with the other half of its update",
            "U after image with _sequence_id_ 9011 has no before image",
        ],
        0,
    ),
}


@pytest.mark.parametrize("fmt", BAD_MESSAGES)
def test_every_bad_message_is_kept_with_its_reason(
    pipeline_build: Any, cursor: Any, fmt: str
) -> None:
    name, reasons, others = BAD_MESSAGES[fmt]
    bad_file = FIXTURES / fmt / name
    rows = format_rejections(cursor, fmt)
    bad = [row for row in rows if row["source_file"] == str(bad_file)]
    assert [row["rejection_reason"] for row in bad] == reasons
    assert [row["raw_value"] for row in bad] == bad_file.read_text(encoding="utf-8").splitlines()
    assert len(rows) - len(bad) == others


@pytest.mark.parametrize(
    ("staging", "table_key"),
    [
        pytest.param("stg_maxwell__json", "mxw_shop.orders", id="maxwell"),
        pytest.param("stg_aws_dms__json", "dms_fx.orders", id="aws_dms"),
    ],
)
def test_the_duplicate_is_staged_once_as_first_delivery(
    pipeline_build: Any, cursor: Any, staging: str, table_key: str
) -> None:
    rows = query(
        cursor,
        f"""
        select is_first_delivery from cdc_lake_staging.{staging}
        where table_key = '{table_key}' and op = 'insert'
        order by is_first_delivery""",
    )
    assert [row["is_first_delivery"] for row in rows] == [False, True]


# ---------------------------------------------------------------- Flink's `products` table

FLINK_PRODUCTS = (FLINK_PRODUCTS_CHANGELOG, FLINK_PRODUCTS_FINAL_STATE)
FLINK_OGG = (FLINK_OGG_CHANGELOG, FLINK_OGG_FINAL_STATE)
# The public sets that stream Flink's products table (EXPECTED.md sections 1 to 4): name ->
# (formats, its table, its name for require_public_samples, (its changelog, its final state)).
PRODUCTS_SETS = {
    "canal": (CANAL, "inventory.products2", "Canal", FLINK_PRODUCTS),
    # The same changes on mydb.product, mixed with other tables and DDL; the UPDATE and the
    # DELETE of 111 share es, ts and id: the position in the topic orders them.
    "canal-seatunnel": (CANAL, "seatunnel__mydb.product", "Canal", FLINK_PRODUCTS),
    "maxwell": (MAXWELL, "test.product", "Maxwell", FLINK_PRODUCTS),
    "maxwell-seatunnel": (MAXWELL, "seatunnel__test.product", "Maxwell", FLINK_PRODUCTS),
    "ogg": (OGG, "ogg.tbl_test", "GoldenGate", FLINK_OGG),
    "ogg-seatunnel": (OGG, "ogg_seatunnel/ogg.tbl_test", "GoldenGate", FLINK_OGG),
}
# The sets whose deleted rows are checked, and the ids they delete.
DELETED_IDS = {
    "canal": ["102", "103", "111"],
    "maxwell-seatunnel": ["102", "103", "111"],
    "ogg": ["111"],
}


@pytest.mark.parametrize("name", ["canal", "maxwell", "maxwell-seatunnel", "ogg", "ogg-seatunnel"])
def test_flinks_products_give_the_asserted_changelog(
    pipeline_build: Any, cursor: Any, name: str
) -> None:
    formats, table_key, what, (changelog, _) = PRODUCTS_SETS[name]
    require_public_samples(what)
    rows = format_change_log(cursor, formats, table_key, "ordering_key")
    assert as_flink_changelog(rows) == changelog


@pytest.mark.parametrize("name", PRODUCTS_SETS)
def test_flinks_products_final_state(pipeline_build: Any, cursor: Any, name: str) -> None:
    formats, table_key, what, (_, final_state) = PRODUCTS_SETS[name]
    require_public_samples(what)
    assert format_live_rows(cursor, formats, table_key) == final_state


@pytest.mark.parametrize("name", DELETED_IDS)
def test_flinks_products_deleted_rows(pipeline_build: Any, cursor: Any, name: str) -> None:
    formats, table_key, what, _ = PRODUCTS_SETS[name]
    require_public_samples(what)
    deleted = format_current_state(cursor, formats, f"table_key = '{table_key}' and is_deleted")
    assert [(row["primary_key"], row["last_op"]) for row in deleted] == [
        ([row_id], "delete") for row_id in DELETED_IDS[name]
    ]


# ---------------------------------------------------------------- Paimon's schema evolution

# Paimon's table/schemaevolution set, its first three files: format -> (formats, its table,
# its name for require_public_samples).
PAIMON_TABLE_EVOLUTION = {
    # 101's delete repeats the insert's xid and xoffset: delivery order (its file comes later)
    # puts it last.
    "maxwell": (MAXWELL, "paimon_table_schemaevolution__test.product", "Maxwell"),
    # File 3 is out of pos order (147, 158, 152, 149): pos orders it (test_pipeline_ogg.py).
    "ogg": (OGG, "ogg_paimon_table_schemaevolution/ogg.tbl_test", "GoldenGate"),
    # KafkaSyncTableActionITCase#testSchemaEvolutionImpl, PK id. Every record of the set has
    # one timestamp: file order orders them. Keyed by the whole row (no var), 101's delete
    # sends the row its insert did, and 105's update its BI_ image of every column.
    "aws_dms": (AWS_DMS, "paimon_table_schemaevolution__test.product", "AWS DMS"),
}
# Paimon's database/schemaevolution set: format -> (formats, its database, its name).
PAIMON_DATABASE_EVOLUTION = {
    "maxwell": (MAXWELL, "paimon_database_schemaevolution__paimon_sync_database", "Maxwell"),
    "ogg": (OGG, "ogg_paimon_database_schemaevolution/paimon_sync_database", "GoldenGate"),
}


@pytest.mark.parametrize("fmt", PAIMON_TABLE_EVOLUTION)
def test_paimon_table_schema_evolution_final_state(
    pipeline_build: Any, cursor: Any, fmt: str
) -> None:
    # EXPECTED.md section 5, after file 3: 102, 103 (age 18), 104 (age 24), 105 (address
    # Beijing), 107.
    formats, table_key, what = PAIMON_TABLE_EVOLUTION[fmt]
    require_public_samples(what)
    assert format_live_rows(cursor, formats, table_key) == [
        product("102", "car battery", "12V car battery", "8.1"),
        product("103", *DRILLS, "0.8", age="18"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75", age="24"),
        product("105", "hammer", "14oz carpenter's hammer", "0.875", address="Beijing"),
        product("107", "rocks", "box of assorted rocks", "5.3"),
    ]


@pytest.mark.parametrize("fmt", PAIMON_DATABASE_EVOLUTION)
def test_paimon_database_schema_evolution_final_state(
    pipeline_build: Any, cursor: Any, fmt: str
) -> None:
    # Derived (EXPECTED.md's replay rule: an insert upserts its row): t1 gains `age` on 103
    # and 104, t2's second file re-inserts 103 and 104 with an address. GoldenGate's files
    # re-insert keys at the pos they had: the later line of the topic wins the tie.
    formats, database, what = PAIMON_DATABASE_EVOLUTION[fmt]
    require_public_samples(what)
    assert format_live_rows(cursor, formats, f"{database}.t1") == [
        product("101", "scooter", "Small 2-wheel scooter", "3.14"),
        product("102", "car battery", "12V car battery", "8.1"),
        product("103", *DRILLS, "0.8", age="19"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75", age="25"),
    ]
    assert format_live_rows(cursor, formats, f"{database}.t2") == [
        product("103", *DRILLS, "0.8", address="Beijing"),
        product("104", "hammer", "12oz carpenter's hammer", "0.75", address="Shanghai"),
    ]
