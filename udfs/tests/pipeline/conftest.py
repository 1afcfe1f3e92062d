"""The pipeline tests' fixtures: one real Spark Thrift server per test session, and one
`dbt build` over every landed message against it.

The server gets its own data folder and a free port, so a developer's running server (and
its tables) are never touched. Tests that need Java fail, never skip, when it is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from support.kafka_broker import Broker, BrokerError, start_broker
from support.pipeline import node_errors, run_dbt
from support.project import (
    FIXTURES,
    NAMED_SOURCES,
    PROJECT_ROOT,
    SAMPLES,
    SOURCE_COPIES,
    free_port,
)
from support.public_landings import land_public_samples

from cdc_lake import server
from cdc_lake.client import connect
from cdc_lake.loader import load_files


@pytest.fixture(scope="session")
def spark_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[server.ServerConfig]:
    """The embedded server, started once per session with every UDF registered."""
    try:
        server.find_java()
    except server.ServerError as error:
        pytest.fail(f"these tests run a real Spark Thrift server and need Java: {error}")
    config = server.ServerConfig(
        home=tmp_path_factory.mktemp("cdc-lake-home"),
        port=free_port(),
        jars=server.bundled_jars(PROJECT_ROOT),
    )
    server.start_background(config)
    # dbt reads the port from profiles/profiles.yml; its artifacts and logs stay per session,
    # so test sessions never clobber each other's target/ or a developer's.
    dbt_dirs = tmp_path_factory.mktemp("dbt")
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("CDC_LAKE_PORT", str(config.port))
            patch.setenv("DBT_TARGET_PATH", str(dbt_dirs / "target"))
            patch.setenv("DBT_LOG_PATH", str(dbt_dirs / "logs"))
            # The example typed model over the bundled samples is built (dbt_project.yml).
            patch.setenv("CDC_LAKE_SAMPLES", "true")
            yield config
    finally:
        server.stop(config)


@pytest.fixture(scope="session")
def kafka_broker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Broker]:
    """A real Kafka broker (KRaft, one node) for the session; fails, never skips, when its
    jars or Spark's Kafka source are missing."""
    if not server.bundled_jars(PROJECT_ROOT):
        pytest.fail(f"no Spark Kafka source jars under {PROJECT_ROOT / '.jars'}: run make setup")
    try:
        broker = start_broker(tmp_path_factory.mktemp("kafka"))
    except BrokerError as error:
        pytest.fail(str(error))
    try:
        yield broker
    finally:
        broker.stop()


@pytest.fixture
def cursor(spark_server: server.ServerConfig) -> Iterator[Any]:
    with connect(spark_server.host, spark_server.port) as thrift_cursor:
        yield thrift_cursor


@pytest.fixture(scope="session")
def pipeline_build(
    spark_server: server.ServerConfig, tmp_path_factory: pytest.TempPathFactory
) -> Any:
    """Bundled samples, the test fixtures, the named sources' fixtures and the public sample
    sets (support/public_landings.py) loaded, then one `dbt build` over them all: the same build
    whichever modules are collected."""
    with connect(spark_server.host, spark_server.port) as thrift_cursor:
        # A format's samples, then its fixtures, in one load (one insert, the files' load
        # times in that order): a load's fixed round trips are most of a small one's cost.
        formats = {path.name for path in SAMPLES.iterdir() if path.is_dir()}
        for fmt in sorted(formats | {path.name for path in FIXTURES.iterdir()}):
            folders = [SAMPLES / fmt, FIXTURES / fmt]
            load_files(thrift_cursor, fmt, [folder for folder in folders if folder.is_dir()])
        for format_dir in sorted(p for p in NAMED_SOURCES.glob("*/*") if p.is_dir()):
            source = format_dir.parent.name
            for name in (source, SOURCE_COPIES.get(source)):
                if name:
                    load_files(thrift_cursor, format_dir.name, [format_dir], source=name)
        land_public_samples(thrift_cursor, tmp_path_factory.mktemp("public-landing"))
    result = run_dbt("build")
    broken = node_errors(result)
    if broken:
        # Every test of the build would fail on a missing table; say once, and why.
        pytest.fail("dbt build could not run every node:\n" + "\n".join(broken))
    return result
