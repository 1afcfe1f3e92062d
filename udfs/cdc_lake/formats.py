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
    ("loaded_at", "timestamp"),
)


def raw_schema() -> str:
    """The landing schema: `CDC_LAKE_RAW_SCHEMA`, else `cdc_raw`."""
    return os.environ.get("CDC_LAKE_RAW_SCHEMA") or DEFAULT_RAW_SCHEMA


def loaded_files_table() -> str:
    """The load registry (one row per loaded file, with its sha-256) in the landing schema."""
    return f"{raw_schema()}.loaded_files"


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
    """The load registry: one row per file loaded, so loading the same file again adds nothing."""
    return (
        f"create table if not exists {loaded_files_table()} (\n"
        "    source_format string,\n"
        "    source_file string,\n"
        "    file_sha256 string,\n"
        "    file_bytes bigint,\n"
        "    envelope string,\n"
        "    messages bigint,\n"
        "    loaded_at timestamp\n"
        ") using parquet"
    )


def bootstrap_statements(formats: Iterable[str] = tuple(FORMATS)) -> list[str]:
    """The statements that make the raw layer exist: schema, the formats' landing tables (all
    of them by default), load registry."""
    statements = [f"create database if not exists {raw_schema()}"]
    statements += [landing_table_ddl(fmt) for fmt in formats]
    statements.append(loaded_files_ddl())
    return statements
