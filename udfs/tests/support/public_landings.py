"""The public sample sets every session's one `dbt build` replays (udfs/tests/public_samples/).

The shared build lands the same files whichever test modules are collected, so a module run
alone sees the tables the whole suite sees. Files are landed as Kafka would deliver them:
license comment lines left out (Paimon's tests skip them too), each scenario's files
concatenated in topic order, and every Canal and Maxwell set except Flink's canal-data.txt
and maxwell-data.txt with its `database` prefixed by a tag, because the sets reuse the same
tables with contradicting contents. Of the Paimon Debezium files only scenarios whose tables
no other Debezium file uses are taken (the schema evolution one as its own source); every
other byte is as published.
Every Paimon AWS DMS set is landed the same way, its `schema-name` prefixed by its tag.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from cdc_lake.loader import load_files
from support.project import TESTS

PUBLIC = TESTS / "public_samples"


def paimon_files(
    connector: str, case: str, numbers: Iterable[int], topics: Iterable[int] | None = None
) -> list[str]:
    """One case of Apache Paimon's Kafka test data, in topic order: Paimon lays every format's
    out alike, `kafka/<connector>/<case>/[topic<t>/]<connector>-data-<n>.txt`."""
    folders = [case] if topics is None else [f"{case}/topic{topic}" for topic in topics]
    return [
        f"apache-paimon/kafka/{connector}/{folder}/{connector}-data-{number}.txt"
        for folder in folders
        for number in numbers
    ]


FLINK_CANAL_DATA = "apache-flink-connector-kafka/canal-data.txt"
PAIMON_CANAL = "apache-paimon/kafka/canal"
PUBLIC_DEBEZIUM_FILES = [
    "apache-flink-connector-kafka/debezium-data-schema-exclude.txt",
    "apache-flink/debezium-postgres-data-replica-identity.txt",
    "apache-paimon/kafka/debezium/table/schemaevolution/debezium-data-1.txt",
    "apache-paimon/kafka/debezium/table/schemaevolution/debezium-data-2.txt",
    "apache-paimon/kafka/debezium/table/schemaevolution/debezium-data-3.txt",
    "apache-paimon/kafka/debezium/table/nullvalue/debezium-data-1.txt",
    "apache-paimon/kafka/debezium/table/nullvalue/debezium-data-2.txt",
    "apache-paimon/kafka/debezium/table/schema/alltype/debezium-data-1.txt",
    "apache-paimon/kafka/debezium/database/include/topic0/debezium-data-1.txt",
]
# Paimon's Debezium schema evolution writes `test.product`, as Flink's maxwell-data.txt and
# the bundled Maxwell sample do with other rows: loaded as the source `paimon` (table key
# `paimon/test.product`), its bytes untouched.
PAIMON_DEBEZIUM_SCHEMA_EVOLUTION = "apache-paimon/kafka/debezium/table/schemaevolution/"
PAIMON_SOURCE = "paimon"
FLINK_MAXWELL_DATA = "apache-flink-connector-kafka/maxwell-data.txt"
# Maxwell sets with an expectation in EXPECTED.md (asserted or derived), tag -> files in topic
# order. Paimon's table/schemaevolution/maxwell-data-4.txt feeds another of its tests (no
# expected state is written down for it), so it is not replayed after the first three.
MAXWELL_SETS = {
    "seatunnel": ["apache-seatunnel/maxwell-data-filter-table.txt"],
    "paimon_table_schemaevolution": paimon_files("maxwell", "table/schemaevolution", (1, 2, 3)),
    "paimon_database_schemaevolution": paimon_files(
        "maxwell", "database/schemaevolution", (1, 2), topics=(0, 1)
    ),
}
FLINK_OGG_DATA = "apache-flink/ogg-data.txt"
PAIMON_OGG = "apache-paimon/kafka/ogg"
# GoldenGate sets, tag -> files in topic order, each loaded as the source `ogg_<tag>` (table
# keys `ogg_<tag>/<schema>.<table>`, every byte as published): the sets reuse OGG.TBL_TEST and
# PAIMON_SYNC_DATABASE's tables with contradicting contents.
OGG_SETS = {
    "seatunnel": ["apache-seatunnel/ogg-data-filter-table.txt"],
    "paimon_table_schemaevolution": paimon_files("ogg", "table/schemaevolution", (1, 2, 3)),
    "paimon_table_event": [
        f"{PAIMON_OGG}/table/event/event-{kind}.txt" for kind in ("insert", "update", "delete")
    ],
    "paimon_table_startupmode": paimon_files("ogg", "table/startupmode", (1, 2)),
    "paimon_table_watermark": paimon_files("ogg", "table/watermark", (1,)),
    "paimon_table_computedcolumn": paimon_files("ogg", "table/computedcolumn", (1,)),
    "paimon_table_metadatacolumn": paimon_files("ogg", "table/metadatacolumn", (1,)),
    "paimon_database_schemaevolution": paimon_files(
        "ogg", "database/schemaevolution", (1, 2), topics=(0, 1)
    ),
    "paimon_database_prefixsuffix": paimon_files(
        "ogg", "database/prefixsuffix", (1, 2), topics=(0, 1)
    ),
    "paimon_database_include": paimon_files("ogg", "database/include", (1,), topics=(0,)),
    "paimon_database_case_insensitive": paimon_files("ogg", "database/case-insensitive", (1,)),
}
# Paimon's AWS DMS sets, tag -> files in topic order, each landed as one file with its
# `schema-name` tagged (every set writes `test.product` or `paimon_sync_database.t1`...).
# table/schemaevolution/aws-dms-data-4.txt is replayed alone, as Paimon's testTableFiledValNull
# reads it.
DMS_SETS = {
    "paimon_table_schemaevolution": paimon_files("aws-dms", "table/schemaevolution", (1, 2, 3)),
    "paimon_table_fieldvalnull": paimon_files("aws-dms", "table/schemaevolution", (4,)),
    "paimon_table_startupmode": paimon_files("aws-dms", "table/startupmode", (1, 2)),
    "paimon_table_watermark": paimon_files("aws-dms", "table/watermark", (1,)),
    "paimon_table_computedcolumn": paimon_files("aws-dms", "table/computedcolumn", (1,)),
    "paimon_table_metadatacolumn": paimon_files("aws-dms", "table/metadatacolumn", (1,)),
    "paimon_database_schemaevolution": paimon_files(
        "aws-dms", "database/schemaevolution", (1, 2), topics=(0, 1)
    ),
    "paimon_database_prefixsuffix": paimon_files(
        "aws-dms", "database/prefixsuffix", (1, 2), topics=(0, 1)
    ),
    "paimon_database_include": paimon_files("aws-dms", "database/include", (1,), topics=(0,)),
}
COMMENT_LINE = re.compile(r"^\s*(/\*|\*)")
DATABASE_FIELD = re.compile(r'("database"\s*:\s*")')
SCHEMA_NAME_FIELD = re.compile(r'("schema-name"\s*:\s*")')


def require_public_samples(what: str) -> None:
    """Fail, not skip: a missing public set would otherwise pass its tests unseen."""
    if not PUBLIC.is_dir():
        pytest.fail(
            f"the public {what} samples are missing: {PUBLIC} (bundled with the tests, "
            "with their SOURCES.md) must exist for these tests"
        )


def canal_sets() -> dict[str, list[Path]]:
    """Tag -> files of one Canal scenario (one Kafka topic or group of topics), in topic order."""
    sets = {
        "flink_init": [PUBLIC / "apache-flink/canal-data-with-init.txt"],
        "seatunnel": [PUBLIC / "apache-seatunnel/canal-data-filter-table.txt"],
    }
    for path in sorted((PUBLIC / PAIMON_CANAL).rglob("*.txt")):
        parts = path.relative_to(PUBLIC / PAIMON_CANAL).parts[:-1]
        scenario = [part for part in parts if not re.fullmatch(r"topic\d+", part)]
        tag = "paimon_" + "_".join(scenario).replace("-", "_")
        sets.setdefault(tag, []).append(path)
    return sets


def message_lines(path: Path) -> list[str]:
    """The message values of a public file: no license comment lines, no blank lines."""
    return [
        line.strip()
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not COMMENT_LINE.match(line)
    ]


def tagged(line: str, tag: str) -> str:
    """The message with its database renamed `<tag>__<database>`; every other byte as is."""
    return DATABASE_FIELD.sub(lambda match: match[1] + tag + "__", line, count=1)


def dms_tagged(line: str, tag: str) -> str:
    """The DMS message with its `schema-name` renamed `<tag>__<schema>`; every other byte as is."""
    return SCHEMA_NAME_FIELD.sub(lambda match: match[1] + tag + "__", line, count=1)


def land_public_samples(cursor: Any, workdir: Path) -> None:
    """Land every public set; when PUBLIC is missing the tests that need it fail, not this.
    Each file is a load of its own, in the order listed; the files of one format and source
    go in one call (one statement, see cdc_lake.loader)."""
    if not PUBLIC.is_dir():
        return
    canal = [PUBLIC / FLINK_CANAL_DATA]
    for tag, paths in canal_sets().items():
        lines = [tagged(line, tag) for path in paths for line in message_lines(path)]
        canal.append(written(workdir / f"{tag}.jsonl", lines))
    load_files(cursor, "canal_json", canal)
    debezium: dict[str | None, list[Path]] = {None: [], PAIMON_SOURCE: []}
    for number, relative in enumerate(PUBLIC_DEBEZIUM_FILES):
        target = workdir / f"{number:02d}_{relative.replace('/', '__')}"
        source = PAIMON_SOURCE if relative.startswith(PAIMON_DEBEZIUM_SCHEMA_EVOLUTION) else None
        debezium[source].append(written(target, message_lines(PUBLIC / relative)))
    for source, paths in debezium.items():
        load_files(cursor, "debezium_json", paths, source=source)
    maxwell = [PUBLIC / FLINK_MAXWELL_DATA]
    for tag, relatives in MAXWELL_SETS.items():
        lines = [
            tagged(line, tag) for relative in relatives for line in message_lines(PUBLIC / relative)
        ]
        maxwell.append(written(workdir / f"maxwell_{tag}.jsonl", lines))
    load_files(cursor, "maxwell_json", maxwell)
    load_files(cursor, "ogg_json", [PUBLIC / FLINK_OGG_DATA])
    for tag, relatives in OGG_SETS.items():
        lines = [line for relative in relatives for line in message_lines(PUBLIC / relative)]
        target = written(workdir / f"ogg_{tag}.jsonl", lines)
        load_files(cursor, "ogg_json", [target], source=f"ogg_{tag}")
    dms = []
    for tag, relatives in DMS_SETS.items():
        lines = [
            dms_tagged(line, tag)
            for relative in relatives
            for line in message_lines(PUBLIC / relative)
        ]
        dms.append(written(workdir / f"aws_dms_{tag}.jsonl", lines))
    load_files(cursor, "aws_dms_json", dms)


def written(target: Path, lines: list[str]) -> Path:
    """`target`, holding these message lines."""
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


PRODUCT_COLUMNS = ("id", "name", "description", "weight")


def product(*values: str | None, **extra: str | None) -> dict[str, str | None]:
    """A products row as the row maps hold it (text), with any columns a set added."""
    return {**dict(zip(PRODUCT_COLUMNS, values, strict=True)), **extra}


# The `products` stream of Flink's canal-data.txt and maxwell-data.txt (and SeaTunnel's copies):
# the 26-row changelog Flink's CanalJsonSerDeSchemaTest and SeaTunnel's MaxWellJsonSerDeSchemaTest
# assert (EXPECTED.md sections 1 and 3), values as the files write them.
# fmt: off
FLINK_PRODUCTS_CHANGELOG = [
    "+I(101,scooter,Small 2-wheel scooter,3.14)", "+I(102,car battery,12V car battery,8.1)",
    "+I(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8)",
    "+I(104,hammer,12oz carpenter's hammer,0.75)", "+I(105,hammer,14oz carpenter's hammer,0.875)",
    "+I(106,hammer,16oz carpenter's hammer,1.0)", "+I(107,rocks,box of assorted rocks,5.3)",
    "+I(108,jacket,water resistent black wind breaker,0.1)",
    "+I(109,spare tire,24 inch spare tire,22.2)",
    "-U(106,hammer,16oz carpenter's hammer,1.0)", "+U(106,hammer,18oz carpenter hammer,1.0)",
    "-U(107,rocks,box of assorted rocks,5.3)", "+U(107,rocks,box of assorted rocks,5.1)",
    "+I(110,jacket,water resistent white wind breaker,0.2)",
    "+I(111,scooter,Big 2-wheel scooter ,5.18)",
    "-U(110,jacket,water resistent white wind breaker,0.2)",
    "+U(110,jacket,new water resistent white wind breaker,0.5)",
    "-U(111,scooter,Big 2-wheel scooter ,5.18)", "+U(111,scooter,Big 2-wheel scooter ,5.17)",
    "-D(111,scooter,Big 2-wheel scooter ,5.17)",
    "-U(101,scooter,Small 2-wheel scooter,3.14)", "+U(101,scooter,Small 2-wheel scooter,5.17)",
    "-U(102,car battery,12V car battery,8.1)", "+U(102,car battery,12V car battery,5.17)",
    "-D(102,car battery,12V car battery,5.17)",
    "-D(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,0.8)",
]
# Derived final state (EXPECTED.md section 1): the live rows.
FLINK_PRODUCTS_FINAL_STATE = [
    product("101", "scooter", "Small 2-wheel scooter", "5.17"),
    product("104", "hammer", "12oz carpenter's hammer", "0.75"),
    product("105", "hammer", "14oz carpenter's hammer", "0.875"),
    product("106", "hammer", "18oz carpenter hammer", "1.0"),
    product("107", "rocks", "box of assorted rocks", "5.1"),
    product("108", "jacket", "water resistent black wind breaker", "0.1"),
    product("109", "spare tire", "24 inch spare tire", "22.2"),
    product("110", "jacket", "new water resistent white wind breaker", "0.5"),
]
# GoldenGate's `products` stream, Flink's ogg-data.txt (and SeaTunnel's copy): EXPECTED.md
# section 4 (Flink's and SeaTunnel's OggJsonSerDeSchemaTest), the 20-row changelog of section
# 2, values as the file writes them (FLOAT artefacts as sent).
FLINK_OGG_CHANGELOG = [
    "+I(101,scooter,Small 2-wheel scooter,3.140000104904175)",
    "+I(102,car battery,12V car battery,8.100000381469727)",
    "+I(103,12-pack drill bits,12-pack of drill bits with sizes ranging from #40 to #3,"
    "0.800000011920929)",
    "+I(104,hammer,12oz carpenter's hammer,0.75)",
    "+I(105,hammer,14oz carpenter's hammer,0.875)",
    "+I(106,hammer,16oz carpenter's hammer,1)",
    "+I(107,rocks,box of assorted rocks,5.300000190734863)",
    "+I(108,jacket,water resistent black wind breaker,0.10000000149011612)",
    "+I(109,spare tire,24 inch spare tire,22.200000762939453)",
    "-U(106,hammer,16oz carpenter's hammer,1)", "+U(106,hammer,18oz carpenter hammer,1)",
    "-U(107,rocks,box of assorted rocks,5.300000190734863)",
    "+U(107,rocks,box of assorted rocks,5.099999904632568)",
    "+I(110,jacket,water resistent white wind breaker,0.20000000298023224)",
    "+I(111,scooter,Big 2-wheel scooter ,5.179999828338623)",
    "-U(110,jacket,water resistent white wind breaker,0.20000000298023224)",
    "+U(110,jacket,new water resistent white wind breaker,0.5)",
    "-U(111,scooter,Big 2-wheel scooter ,5.179999828338623)",
    "+U(111,scooter,Big 2-wheel scooter ,5.170000076293945)",
    "-D(111,scooter,Big 2-wheel scooter ,5.170000076293945)",
]
# Derived final state (EXPECTED.md section 2): the 10 live rows.
FLINK_OGG_FINAL_STATE = [
    product("101", "scooter", "Small 2-wheel scooter", "3.140000104904175"),
    product("102", "car battery", "12V car battery", "8.100000381469727"),
    product("103", "12-pack drill bits", "12-pack of drill bits with sizes ranging from #40 to #3",
            "0.800000011920929"),
    product("104", "hammer", "12oz carpenter's hammer", "0.75"),
    product("105", "hammer", "14oz carpenter's hammer", "0.875"),
    product("106", "hammer", "18oz carpenter hammer", "1"),
    product("107", "rocks", "box of assorted rocks", "5.099999904632568"),
    product("108", "jacket", "water resistent black wind breaker", "0.10000000149011612"),
    product("109", "spare tire", "24 inch spare tire", "22.200000762939453"),
    product("110", "jacket", "new water resistent white wind breaker", "0.5"),
]
# fmt: on


def flink_row(image: dict[str, str | None]) -> str:
    """A products row in the notation of the upstream tests' asserted changelogs."""
    return ",".join("null" if image[c] is None else image[c] for c in PRODUCT_COLUMNS)


def as_flink_changelog(rows: list[dict[str, Any]]) -> list[str]:
    """Our change-log rows in Flink's notation: an update is -U(before) then +U(after)."""
    changelog = []
    for row in rows:
        if row["op"] in ("insert", "snapshot"):
            changelog.append(f"+I({flink_row(row['after_row'])})")
        elif row["op"] == "update":
            changelog.append(f"-U({flink_row(row['before_row'])})")
            changelog.append(f"+U({flink_row(row['after_row'])})")
        elif row["op"] == "delete":
            changelog.append(f"-D({flink_row(row['before_row'])})")
    return changelog
