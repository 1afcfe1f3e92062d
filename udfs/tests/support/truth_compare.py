"""The comparison of a database's tables with what cdc-lake holds of them after Debezium
captured them: the live rows of `cdc_current_rows` (every value as text) and the typed model
of each table (`cdc_typed_current_state`).

Both sides are brought to one canonical Python value per column, chosen by the column's type
in the database: how Debezium's JSON converter writes each type (dates as days since 1970,
times and timestamps without zone as microseconds, timestamps with zone as ISO text in UTC,
bytes as base64, decimals as text or as the decoded `Decimal` bytes, JSON as text) is undone
here, so that a difference is a wrong value, never a different spelling. A difference names
the table, the key and the column.

Rules the comparison states rather than hides:
- a column the database dropped stays in `row_data` of rows no change has touched since
  (cdc-lake does not rewrite rows on DDL); only the database's columns are compared;
- a column the database added is absent from rows not changed since: it compares as NULL, so
  the workload adds columns without a default (Debezium sends no event for rows a default
  fills);
- so a column dropped and then added again under its old name shows, in rows no change has
  touched since the drop, the value they held before it: the workload never adds a dropped
  column again.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

EPOCH = dt.datetime(1970, 1, 1)
INTEGERS = {"tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year"}
DECIMALS = {"decimal", "numeric"}
FLOATS = {"float", "double", "real", "double precision"}
TEXTS = {
    "char", "varchar", "character varying", "character", "text", "tinytext", "mediumtext",
    "longtext", "enum", "set",
}  # fmt: skip
BINARIES = {"binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "bytea"}
ZONED = {"timestamp with time zone"}
LOCAL = {"datetime", "timestamp without time zone"}
TIMES = {"time", "time without time zone"}


@dataclass(frozen=True)
class Column:
    """A column as the database describes it: `family` says how its values compare;
    `spark_type` is the type its typed model must have."""

    name: str
    data_type: str
    family: str
    precision: int | None
    spark_type: str


def family(kind: str, data_type: str, column_type: str) -> str:
    """The comparison's family of a database type (MariaDB's TIMESTAMP is zoned: it stores
    UTC and Debezium sends it as ISO text in UTC)."""
    if kind == "mariadb" and data_type == "timestamp":
        return "zoned"
    if kind == "mariadb" and column_type == "tinyint(1)":
        return "integer"
    for name, types in (
        ("integer", INTEGERS | {"int2", "int4", "int8"}),
        ("decimal", DECIMALS),
        ("float", FLOATS),
        ("text", TEXTS),
        ("binary", BINARIES),
        ("zoned", ZONED),
        ("local", LOCAL),
        ("time", TIMES),
    ):
        if data_type in types:
            return name
    if data_type == "date":
        return "date"
    if data_type == "boolean":
        return "boolean"
    if data_type in ("json", "jsonb"):
        return "json"
    raise ValueError(f"no comparison for the database type {data_type}")


def spark_type(kind: str, column: dict[str, Any], kind_family: str) -> str:
    """The Spark type the typed model gives the column, from the Debezium type the connector
    sends (an unsigned or 8-byte integer is bigint, a time is its microseconds)."""
    data_type = column["data_type"]
    if kind_family == "integer":
        if data_type in ("bigint", "int8") or "unsigned" in column["column_type"]:
            return "bigint"
        return "int"
    if kind_family == "decimal":
        return f"decimal({column['numeric_precision']},{column['numeric_scale']})"
    return {
        "float": "double",
        "text": "string",
        "json": "string",
        "binary": "binary",
        "zoned": "timestamp",
        "local": "timestamp",
        "time": "bigint",
        "date": "date",
        "boolean": "boolean",
    }[kind_family]


def describe_columns(connection: Any, kind: str, database: str, table: str) -> list[Column]:
    """The table's columns in order, from the database's information_schema."""
    if kind == "mariadb":
        statement = (
            "select column_name, data_type, column_type, numeric_precision, numeric_scale,"
            " datetime_precision from information_schema.columns"
            " where table_schema = %s and table_name = %s order by ordinal_position"
        )
        parameters: tuple = (database, table)
    else:
        statement = (
            "select column_name, data_type, udt_name as column_type, numeric_precision,"
            " numeric_scale, datetime_precision from information_schema.columns"
            " where table_schema = 'public' and table_name = %s order by ordinal_position"
        )
        parameters = (table,)
    with connection.cursor() as cursor:
        cursor.execute(statement, parameters)
        names = [entry[0].lower() for entry in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    columns = []
    for row in rows:
        data_type = str(row["data_type"]).lower()
        row["column_type"] = str(row["column_type"]).lower()
        kind_family = family(kind, data_type, row["column_type"])
        columns.append(
            Column(
                name=row["column_name"],
                data_type=data_type,
                family=kind_family,
                precision=row["datetime_precision"],
                spark_type=spark_type(kind, row | {"data_type": data_type}, kind_family),
            )
        )
    return columns


def from_database(value: Any, column: Column) -> Any:
    """A value as the database driver returns it, canonical."""
    if value is None:
        return None
    match column.family:
        case "integer":
            return int(value)
        case "decimal":
            return Decimal(value).normalize()
        case "float":
            return float(value)
        case "boolean":
            return bool(value)
        case "binary":
            return bytes(value)
        case "json":
            return json.loads(value) if isinstance(value, str | bytes) else value
        case "zoned":
            if value.tzinfo is None:  # MariaDB's, read in a UTC session
                return value
            return value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        case "local" | "date" | "text":
            return value
        case "time":
            if isinstance(value, dt.timedelta):
                return value // dt.timedelta(microseconds=1)
            seconds = value.hour * 3600 + value.minute * 60 + value.second
            return seconds * 1_000_000 + value.microsecond
    raise AssertionError(column.family)


def from_lake_text(text: str | None, column: Column) -> Any:
    """A value of `row_data` (Debezium's JSON value as text), canonical."""
    if text is None:
        return None
    match column.family:
        case "integer":
            return int(text)
        case "decimal":
            return Decimal(text).normalize()
        case "float":
            return float(text)
        case "boolean":
            return {"true": True, "false": False}[text]
        case "binary":
            return base64.b64decode(text)
        case "json":
            return json.loads(text)
        case "zoned":
            moment = dt.datetime.fromisoformat(text)
            return moment.astimezone(dt.timezone.utc).replace(tzinfo=None)
        case "local":
            unit = 1000 if (column.precision or 0) <= 3 else 1
            return EPOCH + dt.timedelta(microseconds=int(text) * unit)
        case "date":
            return (EPOCH + dt.timedelta(days=int(text))).date()
        case "time":
            return int(text)
        case "text":
            return text
    raise AssertionError(column.family)


def from_typed(value: Any, column: Column) -> Any:
    """A value of the typed model, as the Thrift client returns it, canonical."""
    if value is None:
        return None
    match column.family:
        case "zoned" | "local":
            return value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(value)
        case "date":
            return value if isinstance(value, dt.date) else dt.date.fromisoformat(value)
        case "binary":
            return bytes(value) if not isinstance(value, str) else value.encode("latin-1")
        case "json":
            return json.loads(value)
        case "boolean":
            return bool(value)
        case "decimal":
            return Decimal(value).normalize()
        case "integer" | "time":
            return int(value)
        case "float":
            return float(value)
        case "text":
            return value
    raise AssertionError(column.family)


def differences(
    table: str,
    key_columns: list[str],
    columns: list[Column],
    database_rows: list[dict[str, Any]],
    lake_rows: list[dict[str, Any]],
    lake_value: Any = from_lake_text,
) -> list[str]:
    """Every difference between the database's rows and the lake's (row_data maps, or typed
    rows with `lake_value=from_typed`), one line each: table, key, column, both values. A
    table without a key compares as a multiset of whole rows."""
    expected = [
        {c.name: from_database(row.get(c.name), c) for c in columns} for row in database_rows
    ]
    found = [{c.name: lake_value(row.get(c.name), c) for c in columns} for row in lake_rows]
    if not key_columns:
        as_items = [tuple(sorted(row.items(), key=lambda item: item[0])) for row in expected]
        in_database = Counter(map(repr, as_items))
        in_lake = Counter(
            repr(tuple(sorted(row.items(), key=lambda item: item[0]))) for row in found
        )
        return [
            f"{table}: row {row} {count}x more in the database than in the lake"
            for row, count in (in_database - in_lake).items()
        ] + [
            f"{table}: row {row} {count}x more in the lake than in the database"
            for row, count in (in_lake - in_database).items()
        ]
    by_key = {tuple(row[k] for k in key_columns): row for row in expected}
    lake_by_key: dict[tuple, dict[str, Any]] = {}
    problems = []
    for row in found:
        key = tuple(row[k] for k in key_columns)
        if key in lake_by_key:
            problems.append(f"{table} key {key}: two live rows in the lake")
        lake_by_key[key] = row
    for key in sorted(by_key.keys() - lake_by_key.keys(), key=repr):
        problems.append(f"{table} key {key}: in the database, not in the lake")
    for key in sorted(lake_by_key.keys() - by_key.keys(), key=repr):
        problems.append(f"{table} key {key}: in the lake, not in the database")
    for key in sorted(by_key.keys() & lake_by_key.keys(), key=repr):
        for column in columns:
            want, got = by_key[key][column.name], lake_by_key[key][column.name]
            if want != got:
                problems.append(
                    f"{table} key {key} column {column.name}: database {short(want)},"
                    f" lake {short(got)}"
                )
    return problems


def short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"
