"""The Kafka loader's decisions that need no broker: ranges, refusals, options, secrets; and
the jars' versions against pyspark's."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest
import tomllib
from hypothesis import given
from hypothesis import strategies as st
from support.project import PROJECT_ROOT

from cdc_lake import server
from cdc_lake.kafka_loader import (
    JAAS_ENV,
    KafkaLoadError,
    KafkaSource,
    PartitionRange,
    client_config,
    offsets_json,
    plan_ranges,
    redact,
    spark_options,
)

T0, T1 = ("t", 0), ("t", 1)


def test_a_new_partition_starts_at_its_log_start_and_a_known_one_after_the_ledger() -> None:
    ranges, behind = plan_ranges({T0: 5}, {T0: 0, T1: 3}, {T0: 9, T1: 7})
    assert ranges == [PartitionRange("t", 0, 5, 9), PartitionRange("t", 1, 3, 7)]
    assert behind == 0


def test_partitions_with_nothing_new_are_not_read() -> None:
    assert plan_ranges({T0: 9}, {T0: 0}, {T0: 9}) == ([], 0)


def test_a_retention_gap_names_the_lost_range_unless_data_loss_is_allowed() -> None:
    with pytest.raises(
        KafkaLoadError, match=r"topic t partition 0: offsets 5 to 7 .* \(3 messages\)"
    ):
        plan_ranges({T0: 5}, {T0: 8}, {T0: 12})
    ranges, _ = plan_ranges({T0: 5}, {T0: 8}, {T0: 12}, allow_data_loss=True)
    assert ranges == [PartitionRange("t", 0, 8, 12, lost=3)]


def test_a_gap_with_nothing_after_it_is_still_recorded() -> None:
    ranges, _ = plan_ranges({T0: 5}, {T0: 8}, {T0: 8}, allow_data_loss=True)
    assert ranges == [PartitionRange("t", 0, 8, 8, lost=3)]


def test_offsets_that_went_back_fail_even_with_data_loss_allowed() -> None:
    with pytest.raises(KafkaLoadError, match="offsets went back"):
        plan_ranges({T0: 50}, {T0: 0}, {T0: 3}, allow_data_loss=True)


@given(
    st.lists(st.tuples(st.integers(0, 50), st.integers(0, 50)), min_size=1, max_size=5),
    st.integers(1, 120),
)
def test_max_messages_caps_the_load_and_counts_the_rest_as_behind(
    spans: list[tuple[int, int]], cap: int
) -> None:
    held = {("t", p): start for p, (start, _) in enumerate(spans)}
    latest = {("t", p): start + extra for p, (start, extra) in enumerate(spans)}
    earliest = {key: 0 for key in latest}
    ranges, behind = plan_ranges(held, earliest, latest, max_messages=cap)
    taken = sum(r.end - r.start for r in ranges)
    available = sum(extra for _, extra in spans)
    assert taken == min(cap, available) and taken + behind == available
    assert all(held[(r.topic, r.partition)] == r.start for r in ranges)


def test_offsets_json_is_what_spark_takes() -> None:
    ranges = [
        PartitionRange("a", 0, 1, 4),
        PartitionRange("a", 2, 0, 7),
        PartitionRange("b", 0, 3, 5),
    ]
    assert json.loads(offsets_json(ranges, "start")) == {"a": {"0": 1, "2": 0}, "b": {"0": 3}}
    assert json.loads(offsets_json(ranges, "end")) == {"a": {"0": 4, "2": 7}, "b": {"0": 5}}


def test_a_source_names_topics_or_a_pattern_and_never_what_the_loader_sets() -> None:
    with pytest.raises(ValueError, match="not both"):
        KafkaSource("b:9092", topics=("a",), pattern="a.*")
    with pytest.raises(ValueError, match="not both"):
        KafkaSource("b:9092")
    with pytest.raises(ValueError, match=f"startingOffsets.*{JAAS_ENV}|{JAAS_ENV}"):
        KafkaSource(
            "b:9092", ("a",), options={"startingOffsets": "earliest", "kafka.sasl.jaas.config": "x"}
        )


def test_the_secret_comes_from_the_environment_into_both_clients_and_never_a_message() -> None:
    jaas = (
        "org.apache.kafka.common.security.scram.ScramLoginModule required "
        'username="loader" password="s3cr\\"et";'
    )
    source = KafkaSource(
        "b:9092",
        ("a",),
        options={
            "kafka.security.protocol": "SASL_SSL",
            "kafka.sasl.mechanism": "SCRAM-SHA-512",
            "kafka.ssl.truststore.type": "PEM",
            "kafka.ssl.truststore.location": "/etc/ca.pem",
            "kafkaConsumer.pollTimeoutMs": "5000",
        },
    )
    spark = spark_options(source, jaas)
    assert spark["kafka.sasl.jaas.config"] == jaas
    assert spark["kafka.isolation.level"] == "read_committed"
    config = client_config(source, jaas)
    assert {k: v for k, v in config.items() if k != "logger"} == {
        "bootstrap.servers": "b:9092",
        "security.protocol": "SASL_SSL",
        "sasl.mechanism": "SCRAM-SHA-512",
        "ssl.ca.location": "/etc/ca.pem",
        "sasl.username": "loader",
        "sasl.password": 's3cr"et',
    }
    assert "s3cr" not in redact(f"error in: options ('kafka.sasl.jaas.config' '{jaas}')", jaas)


def test_the_kafka_source_jars_are_the_pinned_pyspark_version() -> None:
    """Spark's Kafka source must be built for the very Spark it runs in."""
    pins = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    [pyspark] = [
        re.fullmatch(r"pyspark==(\S+)", pin)[1] for pin in pins if pin.startswith("pyspark")
    ]
    namespace = {"m": "http://maven.apache.org/POM/4.0.0"}
    pom = ElementTree.parse(PROJECT_ROOT / "pom.xml")
    assert pom.findtext("m:properties/m:spark.version", namespaces=namespace) == pyspark


def test_the_server_puts_the_jars_on_the_drivers_class_path_and_spark_jars(tmp_path: Path) -> None:
    jars = (tmp_path / "a.jar", tmp_path / "b.jar")
    config = server.ServerConfig(home=tmp_path, jars=jars, conf={"spark.jars": "/mine.jar"})
    conf = server.spark_conf(config)
    assert conf["spark.jars"] == f"{jars[0]},{jars[1]},/mine.jar"
    assert conf["spark.driver.extraClassPath"].split(":")[1:] == [str(j) for j in jars]
    assert "spark.jars" not in server.spark_conf(server.ServerConfig(home=tmp_path))
