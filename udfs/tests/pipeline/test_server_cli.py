"""`cdc-lake serve/status/stop` as a user meets them: one-line errors, never a Java stack trace."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from cdc_lake import server
from cdc_lake.client import connect, run

pytestmark = pytest.mark.spark


def cdc_lake(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cdc_lake.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )


def test_status_of_the_running_server(spark_server: server.ServerConfig) -> None:
    done = cdc_lake("status", "--home", str(spark_server.home))
    assert done.returncode == 0
    assert f"on 127.0.0.1:{spark_server.port}, accepting connections" in done.stdout


def test_hives_function_registry_initialises(spark_server: server.ServerConfig) -> None:
    """The Thrift server loads it when it closes some sessions; a missing class failed the close.

    `reflect` runs `Class.forName`, which initialises the class the way that close does.
    """
    with connect(spark_server.host, spark_server.port) as cursor:
        [[loaded]] = run(
            cursor,
            "select reflect('java.lang.Class', 'forName', "
            "'org.apache.hadoop.hive.ql.exec.FunctionRegistry')",
        )
    assert loaded == "class org.apache.hadoop.hive.ql.exec.FunctionRegistry"


def test_the_server_keeps_its_temporary_files_in_its_home(
    spark_server: server.ServerConfig,
) -> None:
    """Hive's session state (`<uuid>_resources`) and HiveServer2's statement logs go under the
    JVM's temporary directory; under the system's /tmp they outlived every server."""
    with connect(spark_server.host, spark_server.port) as cursor:
        [[temporary]] = run(
            cursor, "select reflect('java.lang.System', 'getProperty', 'java.io.tmpdir')"
        )
    home_tmp = spark_server.home.resolve() / "tmp"
    assert Path(temporary) == home_tmp
    assert list(home_tmp.glob("*_resources")), f"no Hive session resources in {home_tmp}"
    assert list(home_tmp.glob("*/operation_logs")), f"no statement logs in {home_tmp}"


def test_the_home_records_where_its_metastore_was_created(
    spark_server: server.ServerConfig,
) -> None:
    """What a copy or a move of the home is told apart by (server.check_home)."""
    assert spark_server.metastore_dir.is_dir()
    assert spark_server.created_at_file.read_text() == f"{spark_server.home.resolve()}\n"


def test_a_second_serve_on_the_same_home_is_refused(spark_server: server.ServerConfig) -> None:
    done = cdc_lake("serve", "--home", str(spark_server.home), "--port", str(spark_server.port))
    assert done.returncode == 1
    assert done.stderr.startswith("cdc-lake: error: a cdc-lake server is already running")
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_taken_port_is_a_one_line_error(tmp_path: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        done = cdc_lake("serve", "--home", str(tmp_path), "--port", str(port))
    assert done.returncode == 1
    assert done.stderr.strip() == (
        f"cdc-lake: error: 127.0.0.1:{port} is already in use: another server is listening "
        "there (`cdc-lake status` tells whether it is ours); stop it or pass --port"
    )


def test_missing_java_is_a_one_line_error(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "JAVA_HOME"}
    env["PATH"] = str(Path(sys.executable).parent)  # python, but no java
    done = cdc_lake("serve", "--home", str(tmp_path), "--port", "1", env=env)
    assert done.returncode == 1
    assert done.stderr.startswith("cdc-lake: error: Java not found")
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_server_that_dies_during_start_points_at_its_log(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = cdc_lake(
        "serve", "--home", str(tmp_path), "--port", str(port),
        "--conf", "spark.driver.memory=not-a-size",
    )  # fmt: skip
    assert done.returncode == 1
    message = done.stderr.strip()
    assert len(message.splitlines()) == 1
    assert message.startswith("cdc-lake: error: the server stopped during start-up")
    assert f"full log: {tmp_path / 'server.log'}" in message
    assert "\tat " not in message
    assert cdc_lake("status", "--home", str(tmp_path)).returncode == 3
