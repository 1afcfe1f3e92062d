"""cdc_table_schemas and the typed current state (macro cdc_typed_current_state), end to end.

The fixture fixtures/dataworks_json/schema_evolution.jsonl holds three hand-made tables of
`fixture_db`: `schema_evolving` (one row, then ALTER TABLE ADD, DROP, MODIFY and CHANGE, each
a real Java-serialized ddlMeta written by java/WriteSamples.java, and no row after them),
`schema_retyped` (a column whose type changes between messages, a column the latest message
drops, and an ALTER older than the latest message) and `schema_ddl_only` (CREATE TABLE and
DROP COLUMN as text only, no ddlMeta, no row). The other formats' samples and fixtures give
the rest: DDL text from Canal, DRS, DTS, SharePlex and Debezium, and formats without types.

The last test lands one more message and re-runs dbt from the DataWorks staging model on: it
adds rows to the table `fixture_db.schema_retyped` only, which no other module reads.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import compiled_inline, query, run_dbt

from cdc_lake.loader import load_files

pytestmark = pytest.mark.spark

SCHEMAS = "cdc_lake.cdc_table_schemas"
EXAMPLE_MODEL = "cdc_lake_typed.example__test01_test"


def schema_of(cursor: Any, table_key: str) -> list[tuple]:
    """(position, name, source type, Spark type, is key, type source) of a table, in order."""
    rows = query(
        cursor,
        f"""
        select column_position, column_name, source_type, spark_type, is_primary_key,
            type_source
        from {SCHEMAS}
        where table_key = '{table_key}'
        order by column_position""",
    )
    return [tuple(row.values()) for row in rows]


def build_signature(sql: str) -> str:
    """The build signature a typed model's SQL names (macro with_build_signature)."""
    named = re.search(r"/\* cdc_lake\.built_from: (.+?) \*/", sql)
    assert named, sql[:200]
    return named.group(1)


def typed_table(cursor: Any, sql: str) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """The (column, Spark type) list and the rows of a query."""
    described = query(cursor, f"describe query {sql}")
    return [(row["col_name"], row["data_type"]) for row in described], query(cursor, sql)


def test_build_succeeds(pipeline_build: Any) -> None:
    assert pipeline_build.success, pipeline_build.exception
    by_name = {result.node.name: result for result in pipeline_build.result.results}
    for name in ("cdc_table_schemas", "example__test01_test"):
        assert by_name[name].status == "success", by_name[name].message
    # the model's key test and the other tests declared on it ran and passed
    schema_tests = [
        result
        for result in pipeline_build.result.results
        if result.node.resource_type == "test"
        and "cdc_table_schemas" in result.node.depends_on.nodes[0]
    ]
    assert len(schema_tests) >= 4
    assert all(result.status == "pass" for result in schema_tests)


def test_the_example_model_is_built_only_with_the_samples(
    spark_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a deployment's own data the example's table is absent: it must not fail the build."""

    def typed_models() -> list[str]:
        listing = run_dbt("ls", "--resource-type", "model", "--select", "marts.typed", "--quiet")
        assert listing.success, listing.exception
        return listing.result

    assert typed_models() == ["cdc_lake.marts.typed.example__test01_test"]
    monkeypatch.delenv("CDC_LAKE_SAMPLES")
    assert typed_models() == []


def test_ddl_after_the_latest_message_adjusts_its_columns(pipeline_build: Any, cursor: Any) -> None:
    """ADD shows columns no row carries yet; DROP removes, MODIFY retypes, CHANGE renames
    (keeping the place) and retypes; columns no DDL touched keep the message's types."""
    assert schema_of(cursor, "fixture_db.schema_evolving") == [
        (1, "id", "LONG", "bigint", True, "message"),
        (2, "name", "STRING", "string", False, "message"),
        (3, "price", "decimal(10,2)", "decimal(10,2)", False, "ddl"),  # was STRING
        (4, "new_name", "bigint", "bigint", False, "ddl"),  # CHANGE old_name new_name bigint
        (5, "c", "text", "string", False, "ddl"),  # CHANGE c `c` text: same name, new type
        (6, "flag", "BOOLEAN", "boolean", False, "message"),
        (7, "bin", "BYTES", "binary", False, "message"),
        (8, "ts", "DATE", "timestamp", False, "message"),
        (9, "note", "varchar(255)", "string", False, "ddl"),  # ADD, no row has it yet
        (10, "qty", "int unsigned", "bigint", False, "ddl"),
    ]  # a and b: dropped


def test_the_latest_message_wins_over_older_ddl_and_older_types(
    pipeline_build: Any, cursor: Any
) -> None:
    """`v` was STRING, the latest message says LONG; `gone` is not in the latest message; the
    ALTER (note, qty) came before the latest message, which does not have those columns."""
    assert schema_of(cursor, "fixture_db.schema_retyped") == [
        (1, "id", "LONG", "bigint", True, "message"),
        (2, "v", "LONG", "bigint", False, "message"),
    ]
    [row] = query(
        cursor,
        f"""select cast(last_seen_at as string) as last_seen_at, last_ordering_key,
            database_name, schema_name, table_name, db_type
        from {SCHEMAS} where table_key = 'fixture_db.schema_retyped' and column_name = 'v'""",
    )
    assert row["last_seen_at"] == "2023-11-14 22:13:22"  # eventTime of sequenceId 4002
    assert row["last_ordering_key"].startswith("044002.")
    assert (row["database_name"], row["schema_name"], row["table_name"], row["db_type"]) == (
        "fixture_db",
        None,
        "schema_retyped",
        "mysql",
    )


def test_ddl_text_alone_describes_columns(pipeline_build: Any, cursor: Any) -> None:
    """Formats that send DDL only as text (and DataWorks without ddlMeta): the statement's
    text is read for CREATE TABLE, ADD and DROP COLUMN."""
    assert schema_of(cursor, "fixture_db.schema_ddl_only") == [
        (1, "id", "bigint", "bigint", False, "ddl"),
        (2, "amount", "decimal(12,4)", "decimal(12,4)", False, "ddl"),
    ]  # label: dropped by `ALTER TABLE ddl_only DROP COLUMN label`
    added = query(
        cursor,
        f"""select table_key, column_name, source_type, spark_type, type_source from {SCHEMAS}
        where type_source = 'ddl' and table_key in (
            'canal_fixtures.truncated', 'my/crm.scratch', 'fixture_db.drs_orders', 'shop.orders',
            'yunshi_db.t_shiyu_nopk'
        )
        order by table_key, column_name""",
    )
    assert added == [
        # canal: ALTER TABLE truncated ADD COLUMN c INT, after the table's last row
        {"table_key": "canal_fixtures.truncated", "column_name": "c", "source_type": "INT",
         "spark_type": "int", "type_source": "ddl"},
        # drs: ALTER TABLE `drs_orders` ADD COLUMN `note` varchar(10)
        {"table_key": "fixture_db.drs_orders", "column_name": "note",
         "source_type": "varchar(10)", "spark_type": "string", "type_source": "ddl"},
        # debezium (connector `my`): ALTER TABLE scratch ADD COLUMN w int
        {"table_key": "my/crm.scratch", "column_name": "w", "source_type": "int",
         "spark_type": "int", "type_source": "ddl"},
        # dts avro: ALTER TABLE orders ADD COLUMN extra int
        {"table_key": "shop.orders", "column_name": "extra", "source_type": "int",
         "spark_type": "int", "type_source": "ddl"},
        # datahub blob (the vendor's ddlMeta): alter table t_shiyu_nopk add column holo text
        {"table_key": "yunshi_db.t_shiyu_nopk", "column_name": "holo", "source_type": "text",
         "spark_type": "string", "type_source": "ddl"},
    ]  # fmt: skip
    # dts canal: ALTER TABLE dts_orders ADD COLUMN note, then a message that has the column
    assert (4, "note", "varchar", "string", False, "message") in schema_of(
        cursor, "dts_canal_fixtures.dts_orders"
    )
    # shareplex: DROP COLUMN OLD_COL after the rows that carried it; later rows lack it
    assert [row[1] for row in schema_of(cursor, "fixture.logs")] == ["LOG_ID", "AMOUNT"]


def test_formats_without_types_take_columns_from_the_images(
    pipeline_build: Any, cursor: Any
) -> None:
    # DataHub Tuple sends no types: the row's columns, as the message lists them, as text
    assert schema_of(cursor, "shop_db.t_user") == [
        (1, "id", None, "string", True, "inferred"),
        (2, "name", None, "string", True, "inferred"),  # no key declared: the whole row is
    ]
    # SharePlex updates are partial: every column any image carried, each seen somewhere
    assert {row[1] for row in schema_of(cursor, "fixture.accounts")} == {
        "ACCOUNT_ID",
        "BALANCE",
        "OWNER_NAME",
    }


def test_typed_messages_of_several_formats(pipeline_build: Any, cursor: Any) -> None:
    # DRS JSON (MySQL mysqlType), in the order the message lists them
    assert [row[1:4] for row in schema_of(cursor, "test01.test")] == [
        ("c11", "binary", "binary"), ("c10", "varchar", "string"), ("c13", "text", "string"),
        ("c12", "varbinary", "binary"), ("c14", "blob", "binary"), ("c1", "varchar", "string"),
        ("c2", "varbinary", "binary"), ("c3", "int", "int"), ("c4", "datetime", "timestamp"),
        ("c5", "timestamp", "timestamp"), ("c6", "char", "string"), ("c7", "float", "double"),
        ("c8", "double", "double"), ("c9", "decimal", "decimal(38,18)"), ("id", "int", "int"),
    ]  # fmt: skip
    # Debezium schema: Kafka Connect types and logical names
    assert [row[1:4] for row in schema_of(cursor, "pg/shop.public.orders")] == [
        ("id", "int32", "int"),
        ("status", "string", "string"),
        ("receipt", "bytes", "binary"),
        ("created", "io.debezium.time.Date", "date"),
    ]
    # DTS Avro: MySQL binlog type codes, then an ALTER TABLE ... ADD COLUMN
    assert [row[1:4] for row in schema_of(cursor, "shop.orders")] == [
        ("id", "3", "bigint"),
        ("note", "253", "string"),
        ("amount", "246", "decimal(38,18)"),
        ("created_at", "12", "timestamp"),
        ("updated_at", "7", "timestamp"),
        ("photo", "252", "string"),  # TEXT and BLOB share the code
        ("extra", "int", "int"),
    ]
    # DRS JSON for GaussDB (columnType)
    assert [row[1:4] for row in schema_of(cursor, "database01.schema01.table01")] == [
        ("timestamp_column", "timestamp without time zone", "timestamp"),
        ("tstzrange_column", "tstzrange", "string"),
        ("int4range_column", "int4range", "string"),
        ("char_column", "character", "string"),
        ("jsonb_column", "json", "string"),
        ("boolean_column", "boolean", "boolean"),
        ("bit_column", "bit", "boolean"),
        ("smallint_column", "smallint", "int"),
        ("bytea_column", "bytea", "binary"),
    ]


# (source type, db_type, Spark type)
TYPE_MAPPING = [
    # MySQL
    ("tinyint(1)", "mysql", "int"), ("smallint(6)", "mysql", "int"),
    ("mediumint", "mysql", "int"), ("int(11)", "mysql", "int"),
    ("int(10) unsigned", "mysql", "bigint"), ("bigint(20)", "mysql", "bigint"),
    ("bigint(20) unsigned", "mysql", "decimal(20,0)"), ("decimal(10,2)", "mysql", "decimal(10,2)"),
    ("decimal(65,30)", "mysql", "string"), ("decimal", "mysql", "decimal(38,18)"),
    ("float", "mysql", "double"), ("double", "mysql", "double"), ("bit(1)", "mysql", "boolean"),
    ("bit(8)", "mysql", "string"), ("date", "mysql", "date"), ("datetime(3)", "mysql", "timestamp"),
    ("timestamp(6)", "mysql", "timestamp"), ("time", "mysql", "string"), ("year", "mysql", "int"),
    ("varchar(255)", "mysql", "string"), ("text", "mysql", "string"), ("json", "mysql", "string"),
    ("enum('a','b')", "mysql", "string"), ("binary(16)", "mysql", "binary"),
    ("longblob", "mysql", "binary"), ("geometry", "mysql", "binary"),
    # MySQL binlog type codes (DTS dataTypeNumber); unknown for other sources
    ("3", "mysql", "bigint"), ("8", "mysql", "bigint"), ("246", "mysql", "decimal(38,18)"),
    ("12", "mysql", "timestamp"), ("10", "mysql", "date"), ("253", "mysql", "string"),
    ("3", "oracle", "string"),
    # Oracle (and the JDBC type names DRS falls back to)
    ("NUMBER(10)", "oracle", "decimal(10,0)"), ("NUMBER(12,2)", "oracle", "decimal(12,2)"),
    ("NUMBER", "oracle", "decimal(38,18)"), ("NUMERIC", "oracle", "decimal(38,18)"),
    ("VARCHAR2(20)", "oracle", "string"), ("NVARCHAR2(20)", "oracle", "string"),
    ("CLOB", "oracle", "string"), ("DATE", "oracle", "timestamp"),
    ("TIMESTAMP(6)", "oracle", "timestamp"), ("TIMESTAMP(6) WITH TIME ZONE", "oracle", "timestamp"),
    ("BINARY_DOUBLE", "oracle", "double"), ("RAW(16)", "oracle", "binary"),
    ("BLOB", "oracle", "binary"), ("FLOAT(126)", "oracle", "double"),
    # PostgreSQL / GaussDB
    ("int2", "postgresql", "int"), ("integer", "postgresql", "int"),
    ("int8", "postgresql", "bigint"), ("numeric(12,3)", "postgresql", "decimal(12,3)"),
    ("double precision", "postgresql", "double"), ("real", "postgresql", "double"),
    ("boolean", "postgresql", "boolean"), ("bytea", "postgresql", "binary"),
    ("character varying(20)", "postgresql", "string"), ("uuid", "postgresql", "string"),
    ("timestamp without time zone", "gaussdb", "timestamp"),
    ("timestamp with time zone", "postgresql", "timestamp"), ("date", "postgresql", "date"),
    ("jsonb", "postgresql", "string"), ("money", "postgresql", "string"),
    # SQL Server
    ("bit", "sqlserver", "boolean"), ("datetime2", "sqlserver", "timestamp"),
    ("datetimeoffset", "sqlserver", "timestamp"), ("money", "sqlserver", "decimal(19,4)"),
    ("nvarchar(max)", "sqlserver", "string"), ("varbinary(max)", "sqlserver", "binary"),
    ("timestamp", "sqlserver", "binary"), ("uniqueidentifier", "sqlserver", "string"),
    ("image", "sqlserver", "binary"),
    # DataWorks dataColumn types (DATE holds any date/time as epoch milliseconds)
    ("LONG", "mysql", "bigint"), ("DOUBLE", "mysql", "double"), ("BOOLEAN", "mysql", "boolean"),
    ("DATE", "mysql", "timestamp"), ("BYTES", "oracle", "binary"), ("STRING", "oracle", "string"),
    # Kafka Connect / Debezium
    ("int8", "mysql", "bigint"), ("int16", "mysql", "int"), ("int32", "postgresql", "int"),
    ("int64", "postgresql", "bigint"), ("float32", "mysql", "double"),
    ("boolean", "mysql", "boolean"), ("bytes", "postgresql", "binary"),
    ("string", "postgresql", "string"), ("io.debezium.time.Date", "postgresql", "date"),
    ("io.debezium.time.Timestamp", "mysql", "timestamp"),
    ("io.debezium.time.MicroTimestamp", "postgresql", "timestamp"),
    ("io.debezium.time.ZonedTimestamp", "postgresql", "timestamp"),
    ("io.debezium.time.MicroTime", "postgresql", "bigint"),
    ("org.apache.kafka.connect.data.Decimal", "mysql", "binary"),
    ("io.debezium.data.Json", "postgresql", "string"),
    # MongoDB type names
    ("objectId", "mongodb", "string"), ("bool", "mongodb", "boolean"),
    ("long", "mongodb", "bigint"), ("decimal128", "mongodb", "decimal(38,18)"),
    ("binData", "mongodb", "binary"),
    # unknown
    (None, "mysql", "string"), ("", "hbase", "string"), ("geography", None, "string"),
]  # fmt: skip


def sql_text(value: str | None) -> str:
    return "cast(null as string)" if value is None else "'" + value.replace("'", "\\'") + "'"


def test_spark_type_mapping(pipeline_build: Any, cursor: Any, tmp_path: Path) -> None:
    values = ", ".join(
        f"({sql_text(source_type)}, {sql_text(db_type)})"
        for source_type, db_type, _ in TYPE_MAPPING
    )
    sql = compiled_inline(
        "select source_type, db_type, "
        "{{ spark_type_for_source_type('source_type', 'db_type') }} as spark_type "
        f"from values {values} as mapped(source_type, db_type)",
        tmp_path,
    )
    rows = query(cursor, sql)
    assert [(r["source_type"], r["db_type"], r["spark_type"]) for r in rows] == TYPE_MAPPING
    # every Spark type named is one Spark accepts
    for spark_type in {spark_type for _, _, spark_type in TYPE_MAPPING}:
        query(cursor, f"select cast(null as {spark_type}) as probe")


# (canonical text, Spark type, source type, the value read back)
TEXT_TO_VALUE = [
    ("42", "bigint", "LONG", 42),
    ("1000.0", "bigint", "LONG", 1000),  # a whole number sent as a JSON float
    ("1E+3", "int", "int", 1000),
    ("1.5", "int", "int", None),  # not a whole number: NULL, never an error
    ("abc", "bigint", "LONG", None),
    ("12345678901234567890", "bigint", "LONG", None),  # out of range
    ("12345678901234567890", "decimal(20,0)", None, Decimal("12345678901234567890")),
    ("9.99", "decimal(10,2)", "decimal(10,2)", Decimal("9.99")),
    ("true", "boolean", "BOOLEAN", True),
    ("false", "boolean", "boolean", False),
    ("1", "boolean", "bit", True),
    ("AQID", "binary", "BYTES", b"\x01\x02\x03"),
    ("not base64!", "binary", "BYTES", None),
    ("2020-05-24 10:14:29.123", "timestamp", "DATE", datetime(2020, 5, 24, 10, 14, 29, 123000)),
    ("2021-06-25", "date", "date", "2021-06-25"),  # PyHive reads dates as text
    ("19000", "date", "io.debezium.time.Date", "2022-01-08"),  # days since 1970-01-01
    ("1590315269123", "timestamp", "io.debezium.time.Timestamp",
     datetime(2020, 5, 24, 10, 14, 29, 123000)),
    ("1590315269123456", "timestamp", "io.debezium.time.MicroTimestamp",
     datetime(2020, 5, 24, 10, 14, 29, 123456)),
    ("1590315269123456789", "timestamp", "io.debezium.time.NanoTimestamp",
     datetime(2020, 5, 24, 10, 14, 29, 123456)),
    ("2020-05-24T10:14:29Z", "timestamp", "io.debezium.time.ZonedTimestamp",
     datetime(2020, 5, 24, 10, 14, 29)),
    ("not a time", "timestamp", "datetime", None),
    ("1.2510357E7", "double", "double", 12510357.0),
    ("text", "string", None, "text"),
    (None, "bigint", "LONG", None),
]  # fmt: skip


def test_typed_value_from_text(pipeline_build: Any, cursor: Any, tmp_path: Path) -> None:
    selects = []
    for index, (text, spark_type, source_type, _) in enumerate(TEXT_TO_VALUE):
        source = "none" if source_type is None else repr(source_type)
        selects.append(
            "{{ typed_value_from_text("
            + repr(sql_text(text))
            + f", '{spark_type}', {source})"
            + " }}"
            + f" as value_{index}"
        )
    sql = compiled_inline("select " + ", ".join(selects), tmp_path)
    [row] = query(cursor, sql)
    got = [row[f"value_{index}"] for index in range(len(TEXT_TO_VALUE))]
    expected = [value for *_, value in TEXT_TO_VALUE]
    assert got == expected
    described = query(cursor, f"describe query {sql}")
    assert [d["data_type"] for d in described] == [spark for _, spark, _, _ in TEXT_TO_VALUE]


def test_example_model_is_typed_from_the_schema(pipeline_build: Any, cursor: Any) -> None:
    columns, rows = typed_table(cursor, f"select * from {EXAMPLE_MODEL} order by id")
    assert columns == [
        ("c11", "binary"), ("c10", "string"), ("c13", "string"), ("c12", "binary"),
        ("c14", "binary"), ("c1", "string"), ("c2", "binary"), ("c3", "int"),
        ("c4", "timestamp"), ("c5", "timestamp"), ("c6", "string"), ("c7", "double"),
        ("c8", "double"), ("c9", "decimal(38,18)"), ("id", "int"),
        ("_cdc_primary_key", "string"), ("_cdc_last_op", "string"),
        ("_cdc_last_source_ts", "timestamp"), ("_cdc_last_ordering_key", "string"),
    ]  # fmt: skip
    [row] = rows  # the sample's update moved the row from id 103 to id 104
    assert row["id"] == 104
    assert row["c3"] == 103
    assert row["c4"] == datetime(2021, 6, 25, 17, 51, 53)  # datetime: the wall-clock text as sent
    assert row["c5"] == datetime(2021, 6, 25, 9, 51, 53, 201000)  # timestamp: epoch seconds, UTC
    assert row["c7"] == 10357.0
    assert row["c8"] == 12510357.0
    assert row["c9"] == Decimal("9874510357")
    assert row["c11"] == b""  # DRS `[]`: empty bytes
    assert row["c12"].startswith(b"jgojgoidsjgojosog9340")  # DRS byte list, via base64
    assert row["c10"] == "华为云huaweicloud"
    assert row["_cdc_primary_key"] == '["104"]'
    assert row["_cdc_last_op"] == "update"


def test_typed_macro_shows_ddl_columns_before_any_row_has_them(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    sql = compiled_inline("{{ cdc_typed_current_state('fixture_db.schema_evolving') }}", tmp_path)
    columns, rows = typed_table(cursor, sql)
    assert columns[:10] == [
        ("id", "bigint"), ("name", "string"), ("price", "decimal(10,2)"),
        ("new_name", "bigint"), ("c", "string"), ("flag", "boolean"), ("bin", "binary"),
        ("ts", "timestamp"), ("note", "string"), ("qty", "bigint"),
    ]  # fmt: skip
    [row] = rows
    assert {name: row[name] for name, _ in columns[:10]} == {
        "id": 1,
        "name": "first",
        "price": Decimal("9.99"),
        # the row was written under old_name; a renamed column fills as rows change
        "new_name": None,
        "c": "see",
        "flag": True,
        "bin": b"\x01\x02\x03",
        "ts": datetime(2023, 11, 14, 22, 13, 20, 123000),
        "note": None,
        "qty": None,
    }


def test_overrides_retype_columns_and_add_missing_ones(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """DataWorks sends LONG for MySQL BIGINT UNSIGNED too: a value past bigint's range is NULL
    as bigint; the override makes it decimal(20,0). A column the schema does not know is
    still selected, so a model keeps its shape."""
    plain = compiled_inline("{{ cdc_typed_current_state('fixture_db.value_types') }}", tmp_path)
    overridden = compiled_inline(
        "{{ cdc_typed_current_state('fixture_db.value_types', "
        "column_types={'id': 'decimal(20,0)', 'note': 'binary', 'not_in_schema': 'int'}) }}",
        tmp_path,
    )
    plain_columns, plain_rows = typed_table(cursor, plain)
    columns, rows = typed_table(cursor, overridden)
    assert ("id", "bigint") in plain_columns
    assert [row["id"] for row in plain_rows] == [None]
    assert columns[:9] == [
        ("id", "decimal(20,0)"), ("price", "double"), ("flag", "boolean"), ("note", "binary"),
        ("bin", "binary"), ("ts", "timestamp"), ("bad_ts", "timestamp"), ("nothing", "string"),
        ("not_in_schema", "int"),
    ]  # fmt: skip
    [row] = rows
    assert row["id"] == Decimal("12345678901234567890")
    assert row["note"] is None  # the text is not base64: NULL, not an error
    assert row["not_in_schema"] is None
    assert row["bad_ts"] is None  # DataWorks kept "not-a-date" as sent; it is no timestamp
    assert row["ts"] == datetime(2020, 5, 24, 10, 14, 29, 123000)


def test_a_new_source_column_appears_on_the_next_run(
    pipeline_build: Any, cursor: Any, tmp_path: Path
) -> None:
    """Runs last in this module: it lands a message and re-runs the models after staging.
    The table columns are rebuilt (a new column); of the typed models, only those of a table
    whose history changed: the example's table got nothing, so its model is left as it is
    (its build signature did not move), while the changed table's signature moved. Then a
    message with the same columns: the table columns are left as they are, and
    cdc_table_schemas says the columns were last described by it."""
    message = {
        "schema": {
            "dataColumn": [
                {"name": "id", "type": "LONG"},
                {"name": "v", "type": "LONG"},
                {"name": "late_col", "type": "DOUBLE"},
            ],
            "primaryKey": ["id"],
            "source": {"dbType": "MySQL", "dbName": "fixture_db", "tableName": "schema_retyped"},
        },
        "payload": {
            "before": None,
            "after": {"dataColumn": {"id": 3, "v": 30, "late_col": 2.5}},
            "sequenceId": "4003",
            "op": "INSERT",
            "timestamp": {"eventTime": 1700000003000, "systemTime": 1700000003005},
            "ddl": None,
        },
        "version": "0.0.1",
    }
    new_file = tmp_path / "late_column.jsonl"
    new_file.write_text(json.dumps(message) + "\n")
    example_before = compiled_inline("{{ cdc_typed_current_state('test01.test') }}", tmp_path)
    before = compiled_inline("{{ cdc_typed_current_state('fixture_db.schema_retyped') }}", tmp_path)
    assert [column for column, _ in typed_table(cursor, before)[0][:3]] == [
        "id",
        "v",
        "_cdc_primary_key",
    ]

    load_files(cursor, "dataworks_json", [new_file])
    result = run_dbt(
        "run", "--select", "stg_dataworks__json+", "--target-path", str(tmp_path / "target")
    )
    assert result.success, result.exception
    messages = {result.node.name: result.message for result in result.result}
    assert (messages["int_cdc__table_columns"], messages["example__test01_test"]) == (
        "OK",
        "OK (unchanged)",
    )
    example_after = compiled_inline("{{ cdc_typed_current_state('test01.test') }}", tmp_path)
    assert build_signature(example_after) == build_signature(example_before)

    assert schema_of(cursor, "fixture_db.schema_retyped") == [
        (1, "id", "LONG", "bigint", True, "message"),
        (2, "v", "LONG", "bigint", False, "message"),
        (3, "late_col", "DOUBLE", "double", False, "message"),
    ]
    after = compiled_inline("{{ cdc_typed_current_state('fixture_db.schema_retyped') }}", tmp_path)
    # its history moved, not only its columns (the signature's last part, the query's md5)
    assert build_signature(after).rsplit("/", 1)[0] != build_signature(before).rsplit("/", 1)[0]
    columns, rows = typed_table(cursor, after + " order by id")
    assert columns[:3] == [("id", "bigint"), ("v", "bigint"), ("late_col", "double")]
    assert [(row["id"], row["v"], row["late_col"]) for row in rows] == [
        (1, 10, None),
        (2, 20, None),
        (3, 30, 2.5),
    ]

    message["payload"] |= {
        "after": {"dataColumn": {"id": 4, "v": 40, "late_col": 3.5}},
        "sequenceId": "4004",
        "timestamp": {"eventTime": 1700000009000, "systemTime": 1700000009005},
    }
    same_columns = tmp_path / "same_columns.jsonl"
    same_columns.write_text(json.dumps(message) + "\n")
    load_files(cursor, "dataworks_json", [same_columns])
    result = run_dbt(
        "run", "--select", "stg_dataworks__json+", "--target-path", str(tmp_path / "target")
    )
    assert result.success, result.exception
    messages = {result.node.name: result.message for result in result.result}
    assert messages["int_cdc__table_columns"] == "OK (unchanged)"
    assert schema_of(cursor, "fixture_db.schema_retyped")[2] == (
        3, "late_col", "DOUBLE", "double", False, "message"
    )  # fmt: skip
    last_seen = query(
        cursor,
        f"""select distinct last_seen_at, last_ordering_key from {SCHEMAS}
        where table_key = 'fixture_db.schema_retyped'""",
    )
    newest = query(
        cursor,
        """select source_ts as last_seen_at, ordering_key as last_ordering_key
        from cdc_lake_intermediate.int_cdc__change_log
        where table_key = 'fixture_db.schema_retyped' and event_id = (
            select max_by(event_id, ordering_key) from cdc_lake_intermediate.int_cdc__change_log
            where table_key = 'fixture_db.schema_retyped')""",
    )
    assert last_seen == newest
    assert newest[0]["last_seen_at"] == datetime(2023, 11, 14, 22, 13, 29)
