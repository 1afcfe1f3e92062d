"""Truth from real databases: MariaDB and PostgreSQL change, Debezium captures them in a
Kafka Connect worker, cdc-lake loads the topics and builds, and the live rows of
`cdc_current_rows`, and the typed model of each table, equal `select *` of the databases.

Four connectors run in one standalone worker: each database through the JSON converter with
schemas and without, as users run it (support/truth_capture.py). The workload
(support/truth_workload.py) makes every kind of change while the stream runs,
with faults between its parts: the Connect worker killed with SIGKILL and started again
(Debezium sends again what came after its last flushed offsets), the Kafka broker restarted,
and the Thrift server killed in the middle of a `dbt build`, which is then run again.

Rules the tests state and check rather than hide:
- without schemas a message carries no types, so the bare captures' typed models are text;
  the typed comparison is made for the captures with schemas;
- PostgreSQL under `REPLICA IDENTITY DEFAULT` sends an update without its old values and a
  TOASTed value the update left unchanged as a placeholder; the state keeps the stored value
  (the staging model's rule) and the update's change-log row has no before image;
- the comparison's own rules (dropped and added columns): support/truth_compare.py.

The module runs a Thrift server of its own (it kills it) in schemas of its own.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from support.kafka_broker import Broker
from support.pipeline import compiled_inline, node_errors, query, run_dbt
from support.project import PROJECT_ROOT, free_port
from support.truth_capture import (
    FORMAT,
    TOPICS,
    Capture,
    CaptureError,
    compare_rows,
    compare_typed,
    running_capture,
)
from support.truth_workload import ROLLBACK_MARK

from cdc_lake import server
from cdc_lake.client import connect
from cdc_lake.kafka_loader import KafkaSource, load_kafka

SEED = 20261207
RAW_SCHEMA = "truth_raw"
MODEL_SCHEMA = "truth"
MODELS = [
    *("--select", "stg_debezium__json +cdc_current_rows +cdc_table_schemas"),
    *("--vars", f"{{cdc_lake_formats: [{FORMAT}]}}"),
]
WITHOUT_TESTS = ["--exclude-resource-type", "test", "--exclude-resource-type", "unit_test"]
# Into the build, when its first models are running (a build here takes a minute or more).
BUILD_KILLED_AFTER_S = 8.0


@dataclass
class Lake:
    """The module's own server (the scenario kills it) and its dbt target."""

    server: server.ServerConfig
    target: Path

    def query(self, statement: str) -> list[dict[str, Any]]:
        with connect(self.server.host, self.server.port) as cursor:
            return query(cursor, statement)

    def load(self, broker: Broker) -> None:
        with connect(self.server.host, self.server.port) as cursor:
            load_kafka(cursor, FORMAT, KafkaSource(broker.bootstrap, pattern=TOPICS))

    def compile_typed(self, table_keys: dict[str, str]) -> dict[str, str]:
        """Each table's typed model, compiled in one dbt invocation (a compile parses the
        project: once, not once per table)."""
        separator = "-- next typed model"
        names = sorted(table_keys)
        sql = f"\n{separator}\n".join(
            f"{{{{ cdc_typed_current_state('{table_keys[name]}') }}}}" for name in names
        )
        compiled = compiled_inline(sql, self.target / "typed")
        return dict(zip(names, compiled.split(separator), strict=True))

    def rows(self, capture: Capture) -> tuple[int, list[str]]:
        return compare_rows(capture, self.query, MODEL_SCHEMA)

    def typed(self, capture: Capture) -> tuple[int, list[str]]:
        return compare_typed(capture, self.query, MODEL_SCHEMA, self.compile_typed)


@pytest.fixture(scope="module")
def capture(kafka_broker: Broker, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Capture]:
    try:
        with running_capture(tmp_path_factory.mktemp("truth"), kafka_broker, SEED) as running:
            yield running
    except CaptureError as error:
        pytest.fail(str(error))


@pytest.fixture(scope="module")
def lake(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lake]:
    folder = tmp_path_factory.mktemp("truth-lake")
    config = server.ServerConfig(
        home=folder / "home", port=free_port(), jars=server.bundled_jars(PROJECT_ROOT)
    )
    server.start_background(config)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CDC_LAKE_PORT", str(config.port))
            patch.setenv("CDC_LAKE_RAW_SCHEMA", RAW_SCHEMA)
            patch.setenv("CDC_LAKE_SCHEMA", MODEL_SCHEMA)
            patch.setenv("DBT_TARGET_PATH", str(folder / "target"))
            yield Lake(config, folder / "target")
    finally:
        server.stop(config)


def kill_server(config: server.ServerConfig) -> None:
    """SIGKILL the server's process group, as a crash would end it."""
    pid = server.read_pid(config)
    assert pid is not None, "the server is not running"
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while server.port_in_use(config.host, config.port) and time.monotonic() < deadline:
        time.sleep(0.2)


@dataclass
class Scenario:
    """What the scenario found: the comparison after its first build, and the deliveries of
    changes the staging model kept as repeats."""

    first_problems: list[str]
    first_compared: int
    repeated_deliveries: int


@pytest.fixture(scope="module")
def scenario(capture: Capture, lake: Lake) -> Scenario:
    """The snapshot and a first part of the stream, built and compared; then the stream with
    its faults, and a build killed and run again, with the data tests."""
    capture.run_steps(60)
    capture.caught_up()
    lake.load(capture.broker)
    first = run_dbt("build", *MODELS, *WITHOUT_TESTS)
    assert not node_errors(first), node_errors(first)
    first_compared, first_problems = lake.rows(capture)

    # The worker killed mid-stream: the changes after its last flushed offsets come twice.
    # A clean stop flushes them; the changes sent after the start are then sent again.
    capture.worker.stop()
    capture.worker.start()
    capture.run_steps(40)
    capture.caught_up()
    capture.worker.kill()
    capture.run_steps(40)
    capture.worker.start()
    capture.run_steps(20)

    # The broker restarted while the worker sends.
    capture.broker.stop()
    capture.run_steps(20)
    capture.broker.start()
    capture.run_steps(20)
    capture.caught_up()

    # The server killed in the middle of a build; the build run again.
    lake.load(capture.broker)
    timer = threading.Timer(BUILD_KILLED_AFTER_S, kill_server, [lake.server])
    timer.start()
    try:
        killed = run_dbt("build", *MODELS, *WITHOUT_TESTS)
    finally:
        timer.join()
    assert not killed.success, "the build ended before the server was killed"
    server.start_background(lake.server)
    rerun = run_dbt("build", *MODELS)
    assert not node_errors(rerun), node_errors(rerun)

    [repeats] = lake.query(
        f"""select count(*) as n from {MODEL_SCHEMA}_staging.stg_debezium__json
        where event_kind = 'change' and not is_first_delivery"""
    )
    return Scenario(first_problems, first_compared, repeats["n"])


def test_the_snapshot_and_first_changes_equal_the_databases(scenario: Scenario) -> None:
    assert scenario.first_compared > 0
    assert not scenario.first_problems, "\n".join(scenario.first_problems[:60])


def test_after_the_faults_the_state_equals_the_databases(
    capture: Capture, lake: Lake, scenario: Scenario
) -> None:
    compared, problems = lake.rows(capture)
    assert compared > 0
    assert not problems, f"{len(problems)} differences:\n" + "\n".join(problems[:60])


def test_changes_sent_twice_are_delivered_once(scenario: Scenario) -> None:
    """The killed worker sent again what came after its last flushed offsets; each such
    change is a repeat delivery of one event (and the state above is still the database)."""
    assert scenario.repeated_deliveries > 0


def test_the_typed_models_equal_the_databases(
    capture: Capture, lake: Lake, scenario: Scenario
) -> None:
    compared, problems = lake.typed(capture)
    assert compared > 0
    assert not problems, f"{len(problems)} typed differences:\n" + "\n".join(problems[:60])


def test_replica_identity_default_sends_updates_without_old_values(
    lake: Lake, scenario: Scenario
) -> None:
    """PostgreSQL logs an update's old values only under REPLICA IDENTITY FULL: the captured
    updates of `customers` (DEFAULT) have no before image, those of `audit_events` (FULL)
    have one; the state is right either way (above). The TOASTed body an update of
    `documents` left unchanged comes as the placeholder, staged as a partial update."""
    rows = lake.query(
        f"""select table_name, before_row is not null as has_before, is_partial
        from {MODEL_SCHEMA}_staging.stg_debezium__json
        where op = 'update' and table_key like 'pg-json/%' and is_first_delivery"""
    )
    kinds = {(r["table_name"], r["has_before"], r["is_partial"]) for r in rows}
    assert ("customers", False, False) in kinds
    assert not any(t == "customers" and before for t, before, _ in kinds)
    assert {before for t, before, _ in kinds if t == "audit_events"} == {True}
    assert ("documents", False, True) in kinds


def test_rolled_back_transactions_reach_no_table(lake: Lake, scenario: Scenario) -> None:
    """The workload rolled transactions back (each wrote ROLLBACK_MARK); Debezium sends only
    committed changes, so no landed message holds the mark (and the state above is right)."""
    [landed] = lake.query(
        f"select count(*) as n from {RAW_SCHEMA}.{FORMAT} where value like '%{ROLLBACK_MARK}%'"
    )
    assert landed["n"] == 0
