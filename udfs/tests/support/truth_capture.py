"""Real databases captured by a real Debezium, and the comparison of cdc-lake's state with
them: used by pipeline/test_truth.py and the soak benchmark (benchmarks/bench_truth.py).

MariaDB and PostgreSQL (support/databases.py) run the seeded workload
(support/truth_workload.py); four connectors run in one standalone Kafka Connect worker
(support/kafka_connect.py): each database through the JSON converter with schemas and
without (`<db>-json`, `<db>-bare`). Each connector's name is its topic prefix and the source
of its tables' keys, so the four captures are four sets of tables in the marts. The
comparison of values: support/truth_compare.py.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from confluent_kafka import Consumer, TopicPartition

from support.databases import MariaDB, Postgres
from support.kafka_broker import QUIET, Broker
from support.kafka_connect import ConnectWorker, mariadb_connector, postgres_connector
from support.truth_compare import Column, describe_columns, differences, from_typed
from support.truth_workload import Workload, keys, truth, write_marker

DATABASE = "shop"
FORMAT = "debezium_json"
KINDS = {"mariadb": "mdb", "postgres": "pg"}
CONNECTORS = tuple(f"{prefix}-{suffix}" for prefix in KINDS.values() for suffix in ("json", "bare"))
# Every topic of the four connectors: their tables' and MariaDB's schema-change topic.
TOPICS = r"^(mdb|pg)-(json|bare)(\..+)?$"
MARKER_TIMEOUT_S = 180.0


class CaptureError(RuntimeError):
    """A marker did not arrive in time: the message says where it was awaited."""


@dataclass
class Capture:
    """The running pieces: both databases, their workloads and the Connect worker."""

    mariadb: MariaDB
    postgres: Postgres
    workloads: dict[str, Workload]
    worker: ConnectWorker
    broker: Broker

    def connection(self, kind: str) -> Any:
        return (self.mariadb if kind == "mariadb" else self.postgres).connect(DATABASE)

    def run_steps(self, count: int) -> int:
        """`count` steps of each database's workload; the changes they made."""
        changes = 0
        for kind, workload in self.workloads.items():
            connection = self.connection(kind)
            try:
                changes += workload.run_steps(connection, workload.steps(count))
            finally:
                connection.close()
        return changes

    def write_markers(self) -> str:
        """A new token in each database's `marker` table: once the state shows it, the state
        holds every change made before it."""
        token = uuid.uuid4().hex
        for kind in self.workloads:
            connection = self.connection(kind)
            try:
                write_marker(connection, token)
            finally:
                connection.close()
        return token

    def caught_up(self) -> None:
        """Markers written and sent by every connector: the binlog and the WAL are read in
        order, so all that came before them is in Kafka."""
        token = self.write_markers()
        for name in CONNECTORS:
            schema = DATABASE if name.startswith("mdb") else "public"
            wait_for_token(self.broker, f"{name}.{schema}.marker", token)


def wait_for_token(broker: Broker, topic: str, token: str) -> None:
    consumer = Consumer(
        {"bootstrap.servers": broker.bootstrap, "group.id": f"truth-{uuid.uuid4().hex}",
         "enable.auto.commit": False, "logger": QUIET}
    )  # fmt: skip
    try:
        consumer.assign([TopicPartition(topic, 0, 0)])
        deadline = time.monotonic() + MARKER_TIMEOUT_S
        while time.monotonic() < deadline:
            message = consumer.poll(1.0)
            if message is not None and not message.error() and token.encode() in message.value():
                return
        raise CaptureError(f"the marker {token} did not reach {topic} in {MARKER_TIMEOUT_S} s")
    finally:
        consumer.close()


@contextmanager
def running_capture(folder: Path, broker: Broker, seed: int) -> Iterator[Capture]:
    """Both databases with their tables and first rows, and the worker's four connectors
    through their snapshots; everything stopped at the end."""
    mariadb, postgres = MariaDB(folder / "mariadb"), Postgres(folder / "postgres")
    worker = None
    started: list[MariaDB | Postgres] = []
    try:
        for database in (mariadb, postgres):
            database.start()
            started.append(database)
        workloads = {kind: Workload(kind, seed) for kind in KINDS}
        for kind, workload in workloads.items():
            connection = (mariadb if kind == "mariadb" else postgres).connect(DATABASE)
            try:
                workload.create_tables(connection)
                workload.snapshot_rows(connection)
            finally:
                connection.close()
        connectors = []
        for schemas, suffix in ((True, "json"), (False, "bare")):
            connectors.append(
                mariadb_connector(
                    f"mdb-{suffix}", mariadb.host, mariadb.port, mariadb.user, mariadb.password,
                    DATABASE, server_id=5400 + len(connectors),
                    history_file=folder / f"mdb-{suffix}.history", schemas=schemas,
                )
            )  # fmt: skip
            connectors.append(
                postgres_connector(
                    f"pg-{suffix}", postgres.host, postgres.port, postgres.user,
                    postgres.password, DATABASE, postgres.publication, schemas=schemas,
                )
            )  # fmt: skip
        worker = ConnectWorker(folder / "connect", broker, connectors)
        worker.start()
        yield Capture(mariadb, postgres, workloads, worker, broker)
    finally:
        if worker is not None:
            worker.stop()
        for database in started:
            database.stop()


Query = Callable[[str], list[dict[str, Any]]]


def table_keys(run_query: Query, marts: str) -> dict[tuple[str, str], str]:
    """(connector, table) -> table_key of every captured table with a live row."""
    rows = run_query(f"select distinct table_key, table_name from {marts}.cdc_current_rows")
    return {(row["table_key"].split("/")[0], row["table_name"]): row["table_key"] for row in rows}


def live_rows(run_query: Query, marts: str, table_key: str) -> list[dict[str, Any]]:
    rows = run_query(
        f"select to_json(row_data) as row_data from {marts}.cdc_current_rows"
        f" where table_key = '{table_key}'"
    )
    return [json.loads(row["row_data"]) for row in rows]


def compare_rows(capture: Capture, run_query: Query, marts: str) -> tuple[int, list[str]]:
    """Every table of every connector against its database: rows compared, differences."""
    compared, problems = 0, []
    found_keys = table_keys(run_query, marts)
    for kind, prefix in KINDS.items():
        connection = capture.connection(kind)
        try:
            tables = truth(connection, kind)
            for table, rows in tables.items():
                columns = describe_columns(connection, kind, DATABASE, table)
                for connector in (f"{prefix}-json", f"{prefix}-bare"):
                    table_key = found_keys.get((connector, table))
                    lake = live_rows(run_query, marts, table_key) if table_key else []
                    label = f"{connector}/{table}"
                    problems += differences(label, keys(kind, table), columns, rows, lake)
                    compared += len(rows)
        finally:
            connection.close()
    return compared, problems


def compare_typed(
    capture: Capture,
    run_query: Query,
    marts: str,
    compile_typed: Callable[[dict[str, str]], dict[str, str]],
) -> tuple[int, list[str]]:
    """The typed model of each table captured with schemas (a bare message has no types, so
    its typed model is text): each column's Spark type is the one its database type maps to,
    and its values are the database's. `compile_typed` compiles each table's
    `cdc_typed_current_state` (name -> table_key in, name -> SQL out)."""
    compared, problems = 0, []
    found_keys = table_keys(run_query, marts)
    for kind, prefix in KINDS.items():
        connector = f"{prefix}-json"
        connection = capture.connection(kind)
        try:
            tables = truth(connection, kind)
            keyed = {t: found_keys[(connector, t)] for t in tables if (connector, t) in found_keys}
            problems += [
                f"{connector}/{t}: no live rows in the lake"
                for t, rows in tables.items()
                if rows and t not in keyed
            ]
            for table, statement in compile_typed(keyed).items():
                columns = describe_columns(connection, kind, DATABASE, table)
                label = f"{connector}/{table} (typed)"
                problems += type_problems(run_query, label, statement, columns)
                problems += differences(
                    label, keys(kind, table), columns, tables[table], run_query(statement),
                    lake_value=from_typed,
                )  # fmt: skip
                compared += len(tables[table])
        finally:
            connection.close()
    return compared, problems


def type_problems(run_query: Query, label: str, statement: str, columns: list[Column]) -> list[str]:
    described = {
        row["col_name"]: row["data_type"] for row in run_query(f"describe query {statement}")
    }
    return [
        f"{label} column {column.name}: typed as {described.get(column.name)},"
        f" the database's {column.data_type} maps to {column.spark_type}"
        for column in columns
        if described.get(column.name) != column.spark_type
    ]
