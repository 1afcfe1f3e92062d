"""A real Apache Kafka broker for the tests: one KRaft node (broker and controller in one JVM)
on free loopback ports, in a folder of its own, from the jars `make test` fetches (pom.xml,
profile kafka-broker). Also used by the freshness benchmark."""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic

from support.project import PROJECT_ROOT, free_port

BROKER_JARS = PROJECT_ROOT / ".jars" / "kafka-broker"
START_TIMEOUT_S = 90.0
HEAP = "-Xmx512m"
# librdkafka's own log (connection refused while the broker starts ...) is not the tests'.
QUIET = logging.getLogger("kafka-broker-client")
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False

LOG4J2 = """<?xml version="1.0" encoding="UTF-8"?>
<Configuration status="WARN">
  <Appenders>
    <File name="file" fileName="{log}"><PatternLayout pattern="%d %p %c{{1}} %m%n"/></File>
  </Appenders>
  <Loggers><Root level="INFO"><AppenderRef ref="file"/></Root></Loggers>
</Configuration>
"""


class BrokerError(RuntimeError):
    """The broker could not be started: the message says why and where its log is."""


@dataclass
class Broker:
    """A running broker: `bootstrap` is its client address."""

    folder: Path
    port: int
    controller_port: int
    process: subprocess.Popen | None = None
    _admin: AdminClient | None = None

    @property
    def bootstrap(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def log_file(self) -> Path:
        return self.folder / "broker.log"

    def admin(self) -> AdminClient:
        """One admin client per broker: a future outlives its call only while the client lives."""
        if self._admin is None:
            self._admin = AdminClient({"bootstrap.servers": self.bootstrap, "logger": QUIET})
        return self._admin

    def start(self) -> None:
        """Start the JVM (formatting the log folder the first time) and wait until it answers."""
        java = java_binary()
        classpath = f"{BROKER_JARS}/*"
        properties = self.folder / "server.properties"
        if not properties.exists():
            self.folder.mkdir(parents=True, exist_ok=True)
            properties.write_text(server_properties(self))
            (self.folder / "log4j2.xml").write_text(LOG4J2.format(log=self.log_file))
            subprocess.run(
                [java, "-cp", classpath, *self.jvm_options(), "kafka.tools.StorageTool",
                 "format", "-t", uuid.uuid4().hex[:22], "-c", str(properties)],
                check=True, capture_output=True, text=True,
            )  # fmt: skip
        with (self.folder / "stdout.log").open("ab") as out:
            self.process = subprocess.Popen(
                [java, "-cp", classpath, *self.jvm_options(), "kafka.Kafka", str(properties)],
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise BrokerError(f"the Kafka broker exited at start; see {self.log_file}")
            try:
                self.admin().list_topics(timeout=2)
                return
            except Exception:  # not listening yet
                time.sleep(0.5)
        self.stop()
        raise BrokerError(f"the Kafka broker did not answer in {START_TIMEOUT_S:.0f} s")

    def jvm_options(self) -> list[str]:
        return [HEAP, f"-Dlog4j2.configurationFile={self.folder / 'log4j2.xml'}"]

    def stop(self) -> None:
        """SIGTERM, and SIGKILL if it has not ended in 30 s."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.process = None

    def kill(self) -> None:
        """SIGKILL, as a crash would end it."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        self.process = None

    def create_topic(self, name: str, partitions: int = 1, **config: str) -> None:
        futures = self.admin().create_topics(
            [NewTopic(name, num_partitions=partitions, replication_factor=1, config=config)]
        )
        futures[name].result(30)

    def add_partitions(self, name: str, total: int) -> None:
        self.admin().create_partitions([NewPartitions(name, total)])[name].result(30)

    def delete_topic(self, name: str) -> None:
        self.admin().delete_topics([name])[name].result(30)

    def create_topic_when_deleted(self, name: str, partitions: int = 1) -> None:
        """Create the topic again once the broker has finished deleting it."""
        deadline = time.monotonic() + 30
        while True:
            try:
                self.create_topic(name, partitions)
                return
            except Exception:  # TOPIC_ALREADY_EXISTS while the deletion completes
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def producer(self, **config: str) -> Producer:
        """A producer of this broker (librdkafka settings, e.g. transactional.id)."""
        return Producer({"bootstrap.servers": self.bootstrap, "logger": QUIET, **config})

    def produce(self, topic: str, messages: Iterable[Message]) -> int:
        """Produce every message and wait until the broker has them all; how many."""
        producer = self.producer(**{"linger.ms": "5", "enable.idempotence": "true"})
        count = 0
        for message in messages:
            while True:
                try:
                    producer.produce(topic, **message.arguments())
                    break
                except BufferError:  # the local queue is full: let the broker catch up
                    producer.poll(0.1)
            producer.poll(0)
            count += 1
        if producer.flush(60):
            raise BrokerError(f"messages to {topic} not acknowledged in 60 s")
        return count


@dataclass(frozen=True)
class Message:
    """One message to produce: a None value is a tombstone; no partition: the key's."""

    value: bytes | None
    key: bytes | None = None
    partition: int | None = None
    headers: tuple[tuple[str, bytes], ...] = ()

    def arguments(self) -> dict:
        arguments: dict = {"value": self.value, "key": self.key}
        if self.partition is not None:
            arguments["partition"] = self.partition
        if self.headers:
            arguments["headers"] = list(self.headers)
        return arguments


def java_binary() -> str:
    home = os.environ.get("JAVA_HOME")
    return str(Path(home) / "bin" / "java") if home else "java"


def server_properties(broker: Broker) -> str:
    """A single combined node; every internal topic with one replica. Segments are small and
    retention checks frequent, so a test can make retention delete messages in seconds."""
    settings = {
        "process.roles": "broker,controller",
        "node.id": "1",
        "controller.quorum.voters": f"1@127.0.0.1:{broker.controller_port}",
        "listeners": (
            f"PLAINTEXT://127.0.0.1:{broker.port},CONTROLLER://127.0.0.1:{broker.controller_port}"
        ),
        "advertised.listeners": f"PLAINTEXT://127.0.0.1:{broker.port}",
        "controller.listener.names": "CONTROLLER",
        "inter.broker.listener.name": "PLAINTEXT",
        "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
        "log.dirs": str(broker.folder / "data"),
        "num.partitions": "1",
        "offsets.topic.replication.factor": "1",
        "transaction.state.log.replication.factor": "1",
        "transaction.state.log.min.isr": "1",
        "share.coordinator.state.topic.replication.factor": "1",
        "share.coordinator.state.topic.min.isr": "1",
        "group.initial.rebalance.delay.ms": "0",
        "log.retention.check.interval.ms": "1000",
        "log.segment.delete.delay.ms": "0",
        "auto.create.topics.enable": "false",
    }
    return "".join(f"{key}={value}\n" for key, value in settings.items())


def start_broker(folder: Path) -> Broker:
    """A new broker in `folder`; fails with what to run when the jars are missing."""
    if not any(BROKER_JARS.glob("kafka_2.13-*.jar")):
        raise BrokerError(
            f"no Kafka broker jars in {BROKER_JARS}: `make test-deps` fetches them with Maven"
        )
    broker = Broker(folder, free_port(), free_port())
    broker.start()
    return broker


def sample_messages(folder: Path) -> list[Message]:
    """The messages of a folder of sample files as a producer would send them, in file order:
    a kcat -J envelope's payload and key, a `*.b64` line's bytes, else the line's text."""
    messages = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        for line in path.read_text().splitlines():
            if not line.strip():
                continue
            if path.suffix in (".b64", ".base64"):
                messages.append(Message(base64.b64decode(line)))
                continue
            try:
                envelope = json.loads(line)
            except ValueError:
                envelope = None
            if isinstance(envelope, dict) and {"topic", "partition", "offset"} <= envelope.keys():
                payload, key = envelope.get("payload"), envelope.get("key")
                messages.append(
                    Message(
                        None if payload is None else payload.encode(),
                        None if key is None else key.encode(),
                    )
                )
            else:
                messages.append(Message(line.encode()))
    return messages
