"""`cdc-lake load --kafka`: a topic's new messages into the landing table, exactly once.

Spark reads the messages itself (its batch Kafka source, `make setup` fetches it) in one
`insert ... select`, as the file loader does: no message passes through this client, which
only asks Kafka for offsets. Each load reads, per partition, from the offset after the last
one the ledger (`cdc_raw.kafka_offsets`) holds to the read-committed end taken when the load
starts, into a landing partition of its own (`loaded_at`, the load's id). The ledger gets
the load's plan (its id and ranges) before anything lands, and the same rows with the
messages counted, the commit, after. A load killed anywhere in between (client, server or
broker) leaves a plan without a commit: the next load first lands that plan again, with the
same id and ranges, over whatever the killed one landed (an overwrite of that partition), and
commits it. So every message lands once, and a dbt run that read a killed load's partition
read the very rows that stay. One load per landing table and source at a time.
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from cdc_lake.client import ClientError, run
from cdc_lake.formats import (
    FORMATS,
    check_source_name,
    kafka_offsets_table,
    landing_table,
)
from cdc_lake.loader import optional_string, prepare_raw_tables, sql_string

# The secret parts of Kafka's security settings come from the environment, never from the
# command line (where `ps` shows it) or a file in the repository.
JAAS_ENV = "CDC_LAKE_KAFKA_JAAS"
# Options the loader sets itself: a user's value would break the offset bookkeeping.
RESERVED_OPTIONS = frozenset(
    {
        "assign",
        "subscribe",
        "subscribepattern",
        "startingoffsets",
        "endingoffsets",
        "startingtimestamp",
        "endingtimestamp",
        "startingoffsetsbytimestamp",
        "endingoffsetsbytimestamp",
        "failondataloss",
        "kafka.bootstrap.servers",
        "kafka.isolation.level",
        "kafka.sasl.jaas.config",
        "kafka.group.id",
        "kafka.enable.auto.commit",
    }
)
# Kafka consumer settings the offsets client (librdkafka) takes under the same name.
CLIENT_SETTINGS = frozenset(
    {
        "security.protocol",
        "sasl.mechanism",
        "sasl.kerberos.service.name",
        "ssl.endpoint.identification.algorithm",
        "client.id",
    }
)
# librdkafka logs each failed connection attempt itself; the load's error says what failed.
QUIET = logging.getLogger("cdc_lake.kafka")
QUIET.addHandler(logging.NullHandler())
QUIET.propagate = False
JAAS_CREDENTIAL = re.compile(r'\b(username|password)\s*=\s*"((?:[^"\\]|\\.)*)"')


class KafkaLoadError(ValueError):
    """A load that must not go on (lost or rewound offsets, a missing topic): one line."""


@dataclass(frozen=True)
class KafkaSource:
    """Where to read: the brokers, the topics (named, or a pattern matched against the
    cluster's topics when the load starts) and Kafka settings (`kafka.<setting>`, or a Spark
    Kafka source option)."""

    bootstrap: str
    topics: tuple[str, ...] = ()
    pattern: str | None = None
    options: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if bool(self.topics) == bool(self.pattern):
            raise ValueError("name the topics (--topic) or a pattern (--topic-pattern), not both")
        reserved = sorted(key for key in self.options if key.lower() in RESERVED_OPTIONS)
        if reserved:
            raise ValueError(
                f"cdc-lake sets {', '.join(reserved)} itself"
                + (f" (the JAAS text comes from {JAAS_ENV})" if "jaas" in str(reserved) else "")
            )


@dataclass(frozen=True)
class PartitionRange:
    """What one load reads of one partition: offsets [start, end); `lost` messages before
    `start` that retention deleted before they were landed (with --allow-data-loss)."""

    topic: str
    partition: int
    start: int
    end: int
    lost: int = 0


@dataclass(frozen=True)
class KafkaLoadResult:
    """What one load did: messages landed per (topic, partition), and messages lost."""

    loaded_at: str | None
    ranges: tuple[PartitionRange, ...]
    landed: Mapping[tuple[str, int], int]
    behind: int  # offsets left for a later load (--max-messages)

    @property
    def messages(self) -> int:
        return sum(self.landed.values())

    @property
    def lost(self) -> int:
        return sum(r.lost for r in self.ranges)

    def describe(self, fmt: str, source: str | None) -> str:
        target = landing_table(fmt) + ("" if source is None else f" (source {source})")
        if not self.ranges:
            return f"kafka: nothing new for {target}"
        partitions = len(self.ranges)
        line = f"kafka: {self.messages} messages from {partitions} partition(s) -> {target}"
        if self.lost:
            line += f"; {self.lost} messages lost to retention (--allow-data-loss)"
        if self.behind:
            line += f"; {self.behind} offsets left for the next load (--max-messages)"
        return line


def jaas_config(environ: Mapping[str, str] = os.environ) -> str | None:
    """The SASL JAAS text from the environment, if set."""
    return environ.get(JAAS_ENV) or None


def spark_options(source: KafkaSource, jaas: str | None) -> dict[str, str]:
    """The options of the Kafka source every load of `source` shares (without offsets)."""
    options = {"kafka.bootstrap.servers": source.bootstrap, **source.options}
    options["kafka.isolation.level"] = "read_committed"  # aborted transactions never land
    options["includeHeaders"] = "true"
    if jaas:
        options["kafka.sasl.jaas.config"] = jaas
    return options


def client_config(source: KafkaSource, jaas: str | None) -> dict[str, Any]:
    """The offsets client's settings: the same brokers and security as Spark's consumer
    (librdkafka's names; SASL credentials taken from the JAAS text, PEM trust from a
    `kafka.ssl.truststore.location` of type PEM)."""
    config: dict[str, Any] = {"bootstrap.servers": source.bootstrap, "logger": QUIET}
    for key, value in source.options.items():
        name = key.removeprefix("kafka.")
        if key.startswith("kafka.") and name in CLIENT_SETTINGS:
            config[name] = value
    if source.options.get("kafka.ssl.truststore.type", "").upper() == "PEM":
        config["ssl.ca.location"] = source.options["kafka.ssl.truststore.location"]
    for name, value in JAAS_CREDENTIAL.findall(jaas or ""):
        config[f"sasl.{name}"] = value.replace('\\"', '"').replace("\\\\", "\\")
    return config


def plan_ranges(
    held: Mapping[tuple[str, int], int],
    earliest: Mapping[tuple[str, int], int],
    latest: Mapping[tuple[str, int], int],
    allow_data_loss: bool = False,
    max_messages: int | None = None,
) -> tuple[list[PartitionRange], int]:
    """The ranges a load reads, and the offsets it leaves for later (max_messages).

    `held`: per partition the next offset the ledger holds (none: a new partition, read from
    its earliest offset); `earliest`/`latest`: Kafka's log start and (read-committed) end.
    A held offset below the log start is a gap retention made (an error unless
    allow_data_loss); above the end, the topic went back (deleted and made again): an error.
    """
    ranges: list[PartitionRange] = []
    budget = max_messages
    behind = 0
    for key in sorted(latest):
        topic, partition = key
        start, end = held.get(key, earliest[key]), latest[key]
        lost = 0
        if start < earliest[key]:
            lost = earliest[key] - start
            if not allow_data_loss:
                raise KafkaLoadError(
                    f"topic {topic} partition {partition}: offsets {start} to "
                    f"{earliest[key] - 1} were deleted by retention before they were landed "
                    f"({lost} messages); --allow-data-loss lands the rest and records the gap"
                )
            start = earliest[key]
        if start > end:
            raise KafkaLoadError(
                f"topic {topic} partition {partition}: the ledger has landed up to offset "
                f"{start - 1} but the partition ends at {end}: offsets went back (was the "
                "topic deleted and created again?); nothing loaded"
            )
        if budget is not None:
            take = min(end - start, budget)
            behind += end - start - take
            budget -= take
            end = start + take
        if end > start or lost:
            ranges.append(PartitionRange(topic, partition, start, end, lost))
    return ranges, behind


def offsets_json(ranges: Iterable[PartitionRange], which: str) -> str:
    """Spark's startingOffsets/endingOffsets JSON: {"topic": {"0": offset}}."""
    offsets: dict[str, dict[str, int]] = {}
    for r in ranges:
        offsets.setdefault(r.topic, {})[str(r.partition)] = getattr(r, which)
    return json.dumps(offsets, sort_keys=True)


def landing_select(fmt: str, view: str, loaded_at: str, source: str | None) -> str:
    """The `select` that makes Spark read the view's messages as landing rows; the file
    loader's columns, the position in the partition being the offset."""
    value = "value" if FORMATS[fmt] == "binary" else "cast(value as string)"
    source_name = "cast(null as string)" if source is None else sql_string(source)
    return f"""select
    {value} as value,
    topic as kafka_topic,
    partition as kafka_partition,
    offset as kafka_offset,
    cast(key as string) as kafka_key,
    timestamp as kafka_timestamp,
    concat('kafka:', topic, '/', partition) as source_file,
    offset as source_position,
    {source_name} as source_name,
    if(
        size(headers) > 0,
        map_from_entries(transform(headers, h -> struct(h.key, cast(h.value as string)))),
        null
    ) as kafka_headers,
    timestamp {sql_string(loaded_at)} as loaded_at
from {view}"""


class KafkaOffsets:
    """Kafka's view of the topics: partitions, log start and read-committed end offsets."""

    def __init__(self, config: Mapping[str, Any], timeout_s: float = 30.0) -> None:
        from confluent_kafka.admin import AdminClient

        self.admin = AdminClient(dict(config))
        self.timeout_s = timeout_s

    def topics(self, source: KafkaSource) -> list[str]:
        """The named topics (each must exist), or those the pattern matches whole."""
        metadata = self.metadata(source.bootstrap)
        present = {name for name, topic in metadata.topics.items() if topic.error is None}
        if source.pattern is not None:
            pattern = re.compile(source.pattern)
            return sorted(t for t in present if pattern.fullmatch(t) and not t.startswith("__"))
        missing = [t for t in source.topics if t not in present]
        if missing:
            raise KafkaLoadError(f"no such topic at {source.bootstrap}: {', '.join(missing)}")
        return list(source.topics)

    def metadata(self, bootstrap: str) -> Any:
        from confluent_kafka import KafkaException

        try:
            return self.admin.list_topics(timeout=self.timeout_s)
        except KafkaException as error:
            raise KafkaLoadError(
                f"cannot reach Kafka at {bootstrap}: {error.args[0].str()}"
            ) from None

    def offsets(
        self, bootstrap: str, topics: Iterable[str]
    ) -> tuple[dict[tuple[str, int], int], dict[tuple[str, int], int]]:
        """(log start, read-committed end) offset of every partition of the topics."""
        from confluent_kafka import IsolationLevel, KafkaException, TopicPartition
        from confluent_kafka.admin import OffsetSpec

        metadata = self.metadata(bootstrap)
        partitions = [
            TopicPartition(topic, partition)
            for topic in topics
            for partition in sorted(metadata.topics[topic].partitions)
        ]
        result = []
        for spec in (OffsetSpec.earliest(), OffsetSpec.latest()):
            futures = self.admin.list_offsets(
                {tp: spec for tp in partitions},
                isolation_level=IsolationLevel.READ_COMMITTED,
                request_timeout=self.timeout_s,
            )
            try:
                result.append(
                    {(tp.topic, tp.partition): f.result().offset for tp, f in futures.items()}
                )
            except KafkaException as error:
                raise KafkaLoadError(
                    f"cannot read the offsets of {', '.join(topics)} at {bootstrap}: "
                    f"{error.args[0].str()}"
                ) from None
        return result[0], result[1]


def held_offsets(
    cursor: Any, fmt: str, source: str | None, topics: Iterable[str]
) -> dict[tuple[str, int], int]:
    """Per partition of the topics, the offset after the last one the ledger holds."""
    names = ", ".join(sql_string(t) for t in topics) or "null"
    rows = run(
        cursor,
        f"select topic, `partition`, max(end_offset) from {kafka_offsets_table()} "
        f"where committed_at is not null and source_format = {sql_string(fmt)} "
        f"and source_name <=> {optional_string(source)} and topic in ({names}) "
        "group by topic, `partition`",
    )
    return {(topic, int(partition)): int(end) for topic, partition, end in rows}


def pending_loads(cursor: Any, fmt: str, source: str | None) -> dict[str, list[PartitionRange]]:
    """The loads of this landing table and source the ledger has started but not committed
    (killed on the way), by load id (`loaded_at`), with the ranges each was to read."""
    ledger = kafka_offsets_table()
    rows = run(
        cursor,
        f"""select cast(started.loaded_at as string), started.topic, started.`partition`,
    started.start_offset, started.end_offset, started.lost_messages
from {ledger} as started
left anti join (select loaded_at from {ledger} where committed_at is not null) as committed
    on started.loaded_at = committed.loaded_at
where started.committed_at is null and started.source_format = {sql_string(fmt)}
    and started.source_name <=> {optional_string(source)}""",
    )
    pending: dict[str, list[PartitionRange]] = {}
    for loaded_at, topic, partition, start, end, lost in rows:
        pending.setdefault(loaded_at, []).append(
            PartitionRange(topic, int(partition), int(start), int(end), int(lost))
        )
    return pending


def record(
    cursor: Any,
    fmt: str,
    source_name: str | None,
    ranges: Iterable[PartitionRange],
    loaded_at: str,
    landed: Mapping[tuple[str, int], int] | None,
) -> None:
    """The ledger's rows of one load, in one insert: its plan before it lands anything
    (`landed` None: messages and committed_at NULL), and its commit after."""
    committed = "null" if landed is None else "current_timestamp()"
    rows = ",\n".join(
        f"({sql_string(fmt)}, {optional_string(source_name)}, {sql_string(r.topic)}, "
        f"{r.partition}, {r.start - r.lost}, {r.start}, {r.end}, "
        f"{'null' if landed is None else landed.get((r.topic, r.partition), 0)}, {r.lost}, "
        f"timestamp {sql_string(loaded_at)}, {committed})"
        for r in ranges
    )
    run(cursor, f"insert into {kafka_offsets_table()} values\n{rows}")


def land(
    cursor: Any,
    fmt: str,
    source: KafkaSource,
    source_name: str | None,
    ranges: list[PartitionRange],
    loaded_at: str,
    jaas: str | None,
) -> dict[tuple[str, int], int]:
    """Read the ranges into the landing partition `loaded_at`, replacing what it holds (the
    same messages, when an earlier attempt of this load got that far); messages landed per
    partition."""
    reading = [r for r in ranges if r.end > r.start]
    if not reading:
        return {}
    landing = landing_table(fmt)
    view = f"cdc_lake_kafka_{uuid.uuid4().hex}"
    options = spark_options(source, jaas) | {
        "assign": json.dumps(
            {t: sorted(r.partition for r in reading if r.topic == t)
             for t in sorted({r.topic for r in reading})}
        ),
        "startingOffsets": offsets_json(reading, "start"),
        "endingOffsets": offsets_json(reading, "end"),
        "failOnDataLoss": "true",
    }  # fmt: skip
    option_text = ",\n    ".join(
        f"`{key}` {sql_string(value)}" for key, value in sorted(options.items())
    )
    try:
        run(
            cursor,
            f"create or replace temporary view {view} using kafka options (\n    {option_text}\n)",
        )
        # The server overwrites only the partitions written (partitionOverwriteMode dynamic).
        run(
            cursor,
            f"insert overwrite table {landing}\n"
            f"{landing_select(fmt, view, loaded_at, source_name)}",
        )
    except ClientError as error:
        raise ClientError(redact(str(error), jaas)) from None
    finally:
        run(cursor, f"drop view if exists {view}")
    return {
        (topic, int(partition)): int(count)
        for topic, partition, count in run(
            cursor,
            f"select kafka_topic, kafka_partition, count(*) from {landing} "
            f"where loaded_at = timestamp {sql_string(loaded_at)} "
            "group by kafka_topic, kafka_partition",
        )
    }


def load_kafka(
    cursor: Any,
    fmt: str,
    source: KafkaSource,
    source_name: str | None = None,
    allow_data_loss: bool = False,
    max_messages: int | None = None,
    offsets: KafkaOffsets | None = None,
    environ: Mapping[str, str] = os.environ,
) -> KafkaLoadResult:
    """Land the topics' messages Kafka holds past the ledger, once; see the module's text.

    A load the ledger started and did not commit is finished first, with the load id and
    ranges it planned, so that whatever it landed is replaced by the same messages."""
    check_source_name(source_name)
    if max_messages is not None and max_messages < 1:
        raise ValueError("--max-messages must be at least 1")
    landing = landing_table(fmt)
    jaas = jaas_config(environ)
    prepare_raw_tables(cursor, fmt, landing, kafka_offsets_table())
    resumed: list[PartitionRange] = []
    landed: dict[tuple[str, int], int] = {}
    for loaded_at, ranges in sorted(pending_loads(cursor, fmt, source_name).items()):
        counts = land(cursor, fmt, source, source_name, ranges, loaded_at, jaas)
        record(cursor, fmt, source_name, ranges, loaded_at, counts)
        resumed += ranges
        landed |= {key: landed.get(key, 0) + n for key, n in counts.items()}
    offsets = offsets or KafkaOffsets(client_config(source, jaas))
    topics = offsets.topics(source)
    earliest, latest = offsets.offsets(source.bootstrap, topics)
    held = held_offsets(cursor, fmt, source_name, topics)
    ranges, behind = plan_ranges(held, earliest, latest, allow_data_loss, max_messages)
    loaded_at = None
    if ranges:
        loaded_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
        record(cursor, fmt, source_name, ranges, loaded_at, None)
        counts = land(cursor, fmt, source, source_name, ranges, loaded_at, jaas)
        record(cursor, fmt, source_name, ranges, loaded_at, counts)
        landed |= {key: landed.get(key, 0) + n for key, n in counts.items()}
    return KafkaLoadResult(loaded_at, tuple(resumed + ranges), landed, behind)


def redact(text: str, secret: str | None) -> str:
    """The text without the secret, for messages that may quote a statement."""
    return text.replace(secret, "***") if secret else text
