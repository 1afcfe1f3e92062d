"""The vendor formats cdc-lake knows and the landing tables their raw messages go to.

One landing table per format, `cdc_raw.<format>`, with the columns the design names
(`models/docs/_overview__docs.md`). The DDL lives here only: `cdc-lake serve` creates every
landing table at start-up (so dbt sources always exist, even before the first load) and
`cdc-lake load` uses the same definition. `CDC_LAKE_RAW_SCHEMA` names another landing schema
(dbt's sources read the same variable), so that several environments, or a test, can share
one server.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

DEFAULT_RAW_SCHEMA = "cdc_raw"

# format id -> Spark type of the message value. Binary formats keep the bytes as sent.
FORMATS: dict[str, str] = {
    "dataworks_json": "string",
    "datahub_blob": "binary",
    "datahub_tuple": "string",
    "drs_json": "string",
    "drs_json_c": "string",
    "drs_mongo": "string",
    "lindorm_json": "string",
    "debezium_json": "string",
    "dts_avro": "binary",
    "dts_canal_json": "string",
    "dts_shareplex_json": "string",
    "canal_json": "string",
    "maxwell_json": "string",
    "ogg_json": "string",
    "aws_dms_json": "string",
}

LANDING_COLUMNS: tuple[tuple[str, str], ...] = (
    ("kafka_topic", "string"),
    ("kafka_partition", "int"),
    ("kafka_offset", "bigint"),
    ("kafka_key", "string"),
    ("kafka_timestamp", "timestamp"),
    ("source_file", "string"),
    # Position of the message in its file: increasing along the file, not dense. It orders
    # messages of one file when the file carries no Kafka offsets.
    ("source_position", "bigint"),
    # The source the messages came from, as `cdc-lake load --source` named it (NULL when not
    # named): part of each row's table_key, so that two servers' `inventory.customers` stay
    # two tables. Last of the data columns: a table made before it gets it by ADD COLUMNS.
    ("source_name", "string"),
    # A Kafka record's headers, values as UTF-8 text (`cdc-lake load --kafka`); NULL from
    # files. After source_name for the same reason.
    ("kafka_headers", "map<string,string>"),
    ("loaded_at", "timestamp"),
)

LOADED_FILES_COLUMNS: tuple[tuple[str, str], ...] = (
    ("source_format", "string"),
    ("source_file", "string"),
    ("file_sha256", "string"),
    ("file_bytes", "bigint"),
    ("envelope", "string"),
    ("messages", "bigint"),
    ("loaded_at", "timestamp"),
    ("source_name", "string"),
)

# The offset ledger of `cdc-lake load --kafka` (kafka_loader.py): one row per partition a load
# read, written after its messages landed; offsets [start_offset, end_offset) were read,
# [gap_from, start_offset) had been deleted by retention before they were landed.
KAFKA_OFFSETS_COLUMNS: tuple[tuple[str, str], ...] = (
    ("source_format", "string"),
    ("source_name", "string"),
    ("topic", "string"),
    ("partition", "int"),
    ("gap_from", "bigint"),
    ("start_offset", "bigint"),
    ("end_offset", "bigint"),
    ("messages", "bigint"),
    ("lost_messages", "bigint"),
    ("loaded_at", "timestamp"),
    ("committed_at", "timestamp"),
)

# A source name goes into every table_key of its rows: short, and in the characters of a
# Kafka topic (which is what Debezium's own source names are), so it is never a path or an
# identifier's danger. Staging holds names taken from messages to the same rule.
SOURCE_NAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{1,64}")


def raw_schema() -> str:
    """The landing schema: `CDC_LAKE_RAW_SCHEMA`, else `cdc_raw`."""
    return os.environ.get("CDC_LAKE_RAW_SCHEMA") or DEFAULT_RAW_SCHEMA


def loaded_files_table() -> str:
    """The load registry (one row per loaded file, with its sha-256) in the landing schema."""
    return f"{raw_schema()}.loaded_files"


def kafka_offsets_table() -> str:
    """The offset ledger of Kafka loads, in the landing schema."""
    return f"{raw_schema()}.kafka_offsets"


def landing_table(fmt: str) -> str:
    """Qualified landing-table name of a format; rejects unknown formats with the known list."""
    if fmt not in FORMATS:
        known = ", ".join(sorted(FORMATS))
        raise ValueError(f"unknown format {fmt!r}; known formats: {known}")
    return f"{raw_schema()}.{fmt}"


def landing_table_ddl(fmt: str) -> str:
    """`create table if not exists` statement of one format's landing table (parquet).

    Partitioned by `loaded_at`, one partition per load: staging reads the loads since its last
    run, and the partition filter makes Spark list and open only those files, not the whole
    history. The value is a timestamp the loader sets, never text from a message."""
    table = landing_table(fmt)
    columns = (("value", FORMATS[fmt]), *LANDING_COLUMNS)
    body = ",\n    ".join(f"{name} {kind}" for name, kind in columns)
    return (
        f"create table if not exists {table} (\n    {body}\n) using parquet "
        "partitioned by (loaded_at)"
    )


def loaded_files_ddl() -> str:
    """The load registry: one row per file loaded (per source), so loading the same file again
    adds nothing."""
    return plain_table_ddl(loaded_files_table(), LOADED_FILES_COLUMNS)


def kafka_offsets_ddl() -> str:
    """The offset ledger of Kafka loads (KAFKA_OFFSETS_COLUMNS)."""
    return plain_table_ddl(kafka_offsets_table(), KAFKA_OFFSETS_COLUMNS)


def plain_table_ddl(table: str, columns: Iterable[tuple[str, str]]) -> str:
    body = ",\n    ".join(f"`{name}` {kind}" for name, kind in columns)
    return f"create table if not exists {table} (\n    {body}\n) using parquet"


def check_source_name(name: str | None) -> str | None:
    """The name unchanged, or a ValueError saying what a source name may be."""
    if name is not None and not SOURCE_NAME_PATTERN.fullmatch(name):
        raise ValueError(
            f"source name {name[:80]!r} must be 1 to 64 letters, digits, '.', '_' or '-'"
        )
    return name


def upgrade_statements(table: str, present: Iterable[str]) -> list[str]:
    """`alter table ... add columns` for the columns a raw-layer table made by an earlier
    version lacks (`present`: its column names), so an upgrade keeps the loaded history."""
    if table == loaded_files_table():
        wanted = LOADED_FILES_COLUMNS
    elif table == kafka_offsets_table():
        wanted = KAFKA_OFFSETS_COLUMNS
    else:
        wanted = (("value", FORMATS[table.rsplit(".", 1)[1]]), *LANDING_COLUMNS)
    have = {name.lower() for name in present}
    missing = [f"{name} {kind}" for name, kind in wanted if name not in have]
    return [f"alter table {table} add columns ({', '.join(missing)})"] if missing else []


def bootstrap_statements(formats: Iterable[str] = tuple(FORMATS)) -> list[str]:
    """The statements that make the raw layer exist: schema, the formats' landing tables (all
    of them by default), load registry, Kafka offset ledger."""
    statements = [f"create database if not exists {raw_schema()}"]
    statements += [landing_table_ddl(fmt) for fmt in formats]
    statements += [loaded_files_ddl(), kafka_offsets_ddl()]
    return statements
