"""A real Kafka Connect worker (standalone mode, as users run Debezium without a cluster) with
Debezium's MariaDB and PostgreSQL connectors, from the jars `make test` fetches (pom.xml,
profile kafka-connect), against a test broker. The worker keeps its source offsets and the
MariaDB schema history in files of its folder, so a worker killed and started again resumes
where its last flushed offsets say, and sends again what came after them: at-least-once, the
way a crashed Connect worker behaves."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from support.kafka_broker import Broker, java_binary
from support.project import PROJECT_ROOT, free_port

CONNECT_JARS = PROJECT_ROOT / ".jars" / "kafka-connect"
START_TIMEOUT_S = 120.0
HEAP = "-Xmx768m"
# Kafka's default: the source offsets are flushed once a minute (and at a clean stop), so a
# worker killed within a minute of its start sends again everything it sent since.
OFFSET_FLUSH_MS = 60_000

LOG4J2 = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <File name="file" fileName="{log}"><PatternLayout pattern="%d %p %c{{1}} %m%n"/></File>
  </Appenders>
  <Loggers>
    <Logger name="io.debezium" level="INFO"/>
    <Root level="WARN"><AppenderRef ref="file"/></Root>
  </Loggers>
</Configuration>
"""


class ConnectError(RuntimeError):
    """The worker or a connector failed: the message says why and where the log is."""


@dataclass(frozen=True)
class Connector:
    """One Debezium connector: its name (also its topic prefix, Debezium's logical server
    name) and its settings beside the worker's."""

    name: str
    settings: dict[str, str]

    def properties(self) -> str:
        lines = {"name": self.name, "topic.prefix": self.name, **self.settings}
        return "".join(f"{key}={value}\n" for key, value in lines.items())


def converters(schemas: bool) -> dict[str, str]:
    """The JSON converter for keys and values, with the schema envelope or without, set per
    connector as users do when one worker serves consumers of both kinds."""
    settings = {}
    for side in ("key", "value"):
        settings[f"{side}.converter"] = "org.apache.kafka.connect.json.JsonConverter"
        settings[f"{side}.converter.schemas.enable"] = str(schemas).lower()
    return settings


def common_settings(schemas: bool) -> dict[str, str]:
    """What every connector here sets beyond its database: truncates are captured (Debezium
    skips them by default), topics are created by the worker (the test broker does not create
    topics on first use), and without schemas decimals are sent as text (their scale is in the
    schema, which a bare message lacks; `precise` would send unscaled bytes no reader can
    decode)."""
    return {
        "skipped.operations": "none",
        "tombstones.on.delete": "true",
        "snapshot.mode": "initial",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.replication.factor": "1",
        "decimal.handling.mode": "precise" if schemas else "string",
        **converters(schemas),
    }


def mariadb_connector(
    name: str,
    host: str,
    port: int,
    user: str,
    password: str,
    database: str,
    server_id: int,
    history_file: Path,
    schemas: bool = True,
) -> Connector:
    """Debezium's MariaDB connector reading one database's binlog, its schema history in a
    file (a standalone worker has no Kafka history topic to share)."""
    return Connector(
        name,
        {
            "connector.class": "io.debezium.connector.mariadb.MariaDbConnector",
            "database.hostname": host,
            "database.port": str(port),
            "database.user": user,
            "database.password": password,
            "database.server.id": str(server_id),
            "database.include.list": database,
            "database.ssl.mode": "disable",
            "include.schema.changes": "true",
            "schema.history.internal": "io.debezium.storage.file.history.FileSchemaHistory",
            "schema.history.internal.file.filename": str(history_file),
            **common_settings(schemas),
        },
    )


def postgres_connector(
    name: str,
    host: str,
    port: int,
    user: str,
    password: str,
    database: str,
    publication: str,
    schemas: bool = True,
) -> Connector:
    """Debezium's PostgreSQL connector on the built-in `pgoutput` plugin, with a replication
    slot of its own (named after it) on `publication`, which a superuser created FOR ALL
    TABLES (Debezium's default mode would create it so, which only a superuser may)."""
    slot = name.replace("-", "_")
    return Connector(
        name,
        {
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": host,
            "database.port": str(port),
            "database.user": user,
            "database.password": password,
            "database.dbname": database,
            "plugin.name": "pgoutput",
            "slot.name": slot,
            "publication.name": publication,
            "publication.autocreate.mode": "all_tables",
            **common_settings(schemas),
        },
    )


@dataclass
class ConnectWorker:
    """A standalone worker running `connectors` against `broker`; `rest_port` answers the
    Connect REST API (status of each connector)."""

    folder: Path
    broker: Broker
    connectors: list[Connector]
    rest_port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def log_file(self) -> Path:
        return self.folder / "connect.log"

    def start(self) -> None:
        """Start the JVM and wait until every connector's task runs."""
        if not any(CONNECT_JARS.glob("connect-runtime-*.jar")):
            raise ConnectError(f"no Kafka Connect jars under {CONNECT_JARS}: run make test-deps")
        self.folder.mkdir(parents=True, exist_ok=True)
        worker = self.folder / "worker.properties"
        worker.write_text(self.worker_properties())
        (self.folder / "log4j2.xml").write_text(LOG4J2.format(log=self.log_file))
        files = []
        for connector in self.connectors:
            path = self.folder / f"{connector.name}.properties"
            path.write_text(connector.properties())
            files.append(str(path))
        command = [
            java_binary(), "-cp", f"{CONNECT_JARS}/*", HEAP,
            f"-Dlog4j2.configurationFile={self.folder / 'log4j2.xml'}",
            "org.apache.kafka.connect.cli.ConnectStandalone", str(worker), *files,
        ]  # fmt: skip
        with (self.folder / "stdout.log").open("ab") as out:
            self.process = subprocess.Popen(
                command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
            )
        try:
            self.wait_running(START_TIMEOUT_S)
        except ConnectError:
            self.kill()
            raise

    def worker_properties(self) -> str:
        settings = {
            "bootstrap.servers": self.broker.bootstrap,
            "listeners": f"http://127.0.0.1:{self.rest_port}",
            "offset.storage.file.filename": str(self.folder / "connect.offsets"),
            "offset.flush.interval.ms": str(OFFSET_FLUSH_MS),
            "plugin.discovery": "only_scan",
            **converters(True),
        }
        return "".join(f"{key}={value}\n" for key, value in settings.items())

    def status(self, name: str) -> dict:
        url = f"http://127.0.0.1:{self.rest_port}/connectors/{name}/status"
        with urllib.request.urlopen(url, timeout=5) as response:
            return json.load(response)

    def wait_running(self, timeout_s: float) -> None:
        """Until each connector and its task say RUNNING; a FAILED one fails with its trace."""
        deadline = time.monotonic() + timeout_s
        waiting = {connector.name for connector in self.connectors}
        while waiting:
            if self.process is None or self.process.poll() is not None:
                raise ConnectError(f"the Connect worker exited; see {self.log_file}")
            for name in sorted(waiting):
                try:
                    status = self.status(name)
                except (urllib.error.URLError, OSError, ValueError):
                    continue  # the REST server is not up, or the connector not created yet
                states = [status["connector"], *status.get("tasks", [])]
                failed = [state for state in states if state.get("state") == "FAILED"]
                if failed:
                    trace = failed[0].get("trace", "")[:2000]
                    raise ConnectError(f"connector {name} failed: {trace}")
                if status.get("tasks") and all(s.get("state") == "RUNNING" for s in states):
                    waiting.discard(name)
            if time.monotonic() > deadline:
                raise ConnectError(
                    f"connectors {sorted(waiting)} not running in {timeout_s:.0f} s;"
                    f" see {self.log_file}"
                )
            time.sleep(0.5)

    def stop(self) -> None:
        """SIGTERM (the worker flushes its offsets), and SIGKILL if it has not ended in 30 s."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def kill(self) -> None:
        """SIGKILL, as a crash would end it: offsets not yet flushed are lost, so the changes
        after the last flush are sent again by the next start."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None
