"""The public sample sets every session's one `dbt build` replays (udfs/tests/public_samples/).

The shared build lands the same files whichever test modules are collected, so a module run
alone sees the tables the whole suite sees. Files are landed as Kafka would deliver them:
license comment lines left out (Paimon's tests skip them too), each scenario's files
concatenated in topic order, and every Canal and Maxwell set except Flink's canal-data.txt
and maxwell-data.txt with its `database` prefixed by a tag, because the sets reuse the same
tables with contradicting contents. Of the Paimon Debezium files only scenarios whose tables
no other Debezium file uses are taken (the schema evolution one as its own source); every
other byte is as published.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from cdc_lake.loader import load_files

PUBLIC = Path(__file__).resolve().parent / "public_samples"
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
PAIMON_MAXWELL = "apache-paimon/kafka/maxwell"
# Maxwell sets with an expectation in EXPECTED.md (asserted or derived), tag -> files in topic
# order. Paimon's table/schemaevolution/maxwell-data-4.txt feeds another of its tests (no
# expected state is written down for it), so it is not replayed after the first three.
MAXWELL_SETS = {
    "seatunnel": ["apache-seatunnel/maxwell-data-filter-table.txt"],
    "paimon_table_schemaevolution": [
        f"{PAIMON_MAXWELL}/table/schemaevolution/maxwell-data-{number}.txt" for number in (1, 2, 3)
    ],
    "paimon_database_schemaevolution": [
        f"{PAIMON_MAXWELL}/database/schemaevolution/topic{topic}/maxwell-data-{number}.txt"
        for topic in (0, 1)
        for number in (1, 2)
    ],
}
COMMENT_LINE = re.compile(r"^\s*(/\*|\*)")
DATABASE_FIELD = re.compile(r'("database"\s*:\s*")')


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


def land_public_samples(cursor: Any, workdir: Path) -> None:
    """Land every public set; when PUBLIC is missing the tests that need it fail, not this."""
    if not PUBLIC.is_dir():
        return
    load_files(cursor, "canal_json", [PUBLIC / FLINK_CANAL_DATA])
    for tag, paths in canal_sets().items():
        target = workdir / f"{tag}.jsonl"
        lines = [tagged(line, tag) for path in paths for line in message_lines(path)]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        load_files(cursor, "canal_json", [target])
    for number, relative in enumerate(PUBLIC_DEBEZIUM_FILES):
        target = workdir / f"{number:02d}_{relative.replace('/', '__')}"
        target.write_text("\n".join(message_lines(PUBLIC / relative)) + "\n", encoding="utf-8")
        source = PAIMON_SOURCE if relative.startswith(PAIMON_DEBEZIUM_SCHEMA_EVOLUTION) else None
        load_files(cursor, "debezium_json", [target], source=source)
    load_files(cursor, "maxwell_json", [PUBLIC / FLINK_MAXWELL_DATA])
    for tag, relatives in MAXWELL_SETS.items():
        target = workdir / f"maxwell_{tag}.jsonl"
        lines = [
            tagged(line, tag) for relative in relatives for line in message_lines(PUBLIC / relative)
        ]
        target.write_text("\n".join(lines) + "\n", encoding="utf-8")
        load_files(cursor, "maxwell_json", [target])
