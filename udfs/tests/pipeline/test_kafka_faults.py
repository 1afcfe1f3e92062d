"""A Kafka load killed anywhere, then run again, lands every message exactly once.

The Thrift server, the client and the broker are each killed with SIGKILL at a point of the
load: while Spark reads the messages into the landing table, and between that and the
ledger's commit. These tests kill a server of their own (the session's serves the others).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.kafka_broker import Broker, Message
from support.pipeline import query
from support.project import PROJECT_ROOT, free_port

from cdc_lake import server
from cdc_lake.client import ClientError, connect
from cdc_lake.kafka_loader import KafkaSource, load_kafka

RAW_SCHEMA = "kafka_faults"
FORMAT = "canal_json"
# Enough messages that Spark's read of them is under way when a kill comes half a second in.
MESSAGES = 40_000


@pytest.fixture(scope="module")
def own_server(
    kafka_broker: Broker, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[server.ServerConfig]:
    """A server with the Kafka jars that these tests may kill."""
    config = server.ServerConfig(
        home=tmp_path_factory.mktemp("faults-home"),
        port=free_port(),
        jars=server.bundled_jars(PROJECT_ROOT),
    )
    server.start_background(config)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", RAW_SCHEMA)
        try:
            yield config
        finally:
            server.stop(config)


def kill_server(config: server.ServerConfig) -> None:
    """SIGKILL the server's Python process and its JVM (one process group)."""
    pid = server.read_pid(config)
    assert pid is not None, "the server is not running"
    os.killpg(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while server.port_in_use(config.host, config.port) and time.monotonic() < deadline:
        time.sleep(0.2)


class KillingCursor:
    """A cursor that calls `kill` when a statement `when` picks is sent: `delay` seconds into
    its execution, or (delay None) instead of sending it."""

    def __init__(
        self,
        cursor: Any,
        when: Callable[[str], bool],
        kill: Callable[[], None],
        delay: float | None,
    ) -> None:
        self.cursor, self.when, self.kill, self.delay = cursor, when, kill, delay
        self.killed = False

    def execute(self, statement: str) -> None:
        if not self.killed and self.when(statement):
            self.killed = True
            if self.delay is None:
                self.kill()
                raise ConnectionError("killed before this statement")
            threading.Timer(self.delay, self.kill).start()
        self.cursor.execute(statement)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cursor, name)


def landing_insert(statement: str) -> bool:
    return statement.startswith(f"insert overwrite table {RAW_SCHEMA}.{FORMAT}")


def ledger_commit(statement: str) -> bool:
    return statement.startswith(f"insert into {RAW_SCHEMA}.kafka_offsets") and (
        "current_timestamp()" in statement
    )


def produce_topic(broker: Broker, topic: str) -> int:
    broker.create_topic(topic, partitions=3)
    return broker.produce(
        topic, (Message(b'{"n":%d}' % n, partition=n % 3) for n in range(MESSAGES))
    )


def assert_landed_once(config: server.ServerConfig, topic: str, produced: int) -> None:
    """Every offset of the topic landed once, and the ledger counts each once."""
    with connect(config.host, config.port) as cursor:
        [counts] = query(
            cursor,
            f"""select count(*) as rows, count(distinct kafka_partition, kafka_offset) as offsets
            from {RAW_SCHEMA}.{FORMAT} where kafka_topic = '{topic}'""",
        )
        [ledger] = query(
            cursor,
            f"""select sum(messages) as messages, sum(end_offset - start_offset) as offsets
            from {RAW_SCHEMA}.kafka_offsets
            where topic = '{topic}' and committed_at is not null""",
        )
    assert counts == {"rows": produced, "offsets": produced}
    assert ledger == {"messages": produced, "offsets": produced}


def load_after_restart(config: server.ServerConfig, source: KafkaSource) -> None:
    if server.read_pid(config) is None:
        server.start_background(config)
    with connect(config.host, config.port) as cursor:
        load_kafka(cursor, FORMAT, source)


@pytest.mark.parametrize(
    ("when", "delay"),
    [(landing_insert, 0.5), (ledger_commit, None)],
    ids=["while-landing", "before-the-commit"],
)
def test_a_server_killed_during_a_load(
    own_server: server.ServerConfig,
    kafka_broker: Broker,
    when: Callable[[str], bool],
    delay: float | None,
) -> None:
    topic = f"server-killed-{when.__name__}"
    produced = produce_topic(kafka_broker, topic)
    source = KafkaSource(kafka_broker.bootstrap, topics=(topic,))
    with connect(own_server.host, own_server.port) as cursor:
        killing = KillingCursor(cursor, when, lambda: kill_server(own_server), delay)
        with pytest.raises((ClientError, ConnectionError)):
            load_kafka(killing, FORMAT, source)
    assert killing.killed

    load_after_restart(own_server, source)

    assert_landed_once(own_server, topic, produced)


def test_a_client_killed_during_a_load(
    own_server: server.ServerConfig, kafka_broker: Broker, tmp_path: Path
) -> None:
    """The client dies once the load's plan is in the ledger; the server goes on with its
    insert. The next load lands that plan again over it."""
    topic = "client-killed"
    produced = produce_topic(kafka_broker, topic)
    command = [
        sys.executable, "-m", "cdc_lake.cli", "load", "--port", str(own_server.port),
        "--format", FORMAT, "--kafka", kafka_broker.bootstrap, "--topic", topic,
    ]  # fmt: skip
    client = subprocess.Popen(command, cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL)
    with connect(own_server.host, own_server.port) as cursor:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and client.poll() is None:
            planned = query(
                cursor,
                f"select count(*) as n from {RAW_SCHEMA}.kafka_offsets where topic = '{topic}'",
            )
            if planned[0]["n"]:
                break
            time.sleep(0.2)
        assert client.poll() is None, "the load ended before it could be killed"
        client.send_signal(signal.SIGKILL)
        client.wait()

    load_after_restart(own_server, KafkaSource(kafka_broker.bootstrap, topics=(topic,)))

    assert_landed_once(own_server, topic, produced)


def test_a_broker_killed_during_a_load(
    own_server: server.ServerConfig, kafka_broker: Broker
) -> None:
    topic = "broker-killed"
    produced = produce_topic(kafka_broker, topic)
    # Spark's consumer gives up on a dead broker after this, not its default two minutes.
    source = KafkaSource(
        kafka_broker.bootstrap,
        topics=(topic,),
        options={
            "kafkaConsumer.pollTimeoutMs": "5000",
            "kafka.request.timeout.ms": "5000",
            "kafka.default.api.timeout.ms": "5000",
        },
    )
    try:
        with connect(own_server.host, own_server.port) as cursor:
            killing = KillingCursor(cursor, landing_insert, kafka_broker.kill, 0.5)
            with pytest.raises(ClientError):
                load_kafka(killing, FORMAT, source)
        assert killing.killed
    finally:
        if kafka_broker.process is None:
            kafka_broker.start()

    load_after_restart(own_server, source)

    assert_landed_once(own_server, topic, produced)
