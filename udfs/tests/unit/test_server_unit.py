"""Server settings, process bookkeeping and the CLI's argument and error handling, without Spark.

What dbt and the UDFs rely on (single session, UTC, one data folder) is decided by
`spark_conf`; users meet the rest as one-line errors, which must stay one line and say why.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from support.project import free_port

from cdc_lake import cli
from cdc_lake.server import (
    DERBY_STATEMENTS,
    LOCAL_C2_THRESHOLDS,
    LOCAL_COLLECTOR,
    SCHEDULER_POOLS,
    ServerConfig,
    ServerError,
    check_home,
    find_java,
    last_error_line,
    local_cores,
    port_in_use,
    read_pid,
    spark_conf,
)

# --- spark_conf ------------------------------------------------------------------------------


def test_defaults_dbt_and_the_udfs_rely_on(tmp_path: Path) -> None:
    conf = spark_conf(ServerConfig(home=tmp_path, host="0.0.0.0", port=10123))
    assert conf["spark.sql.hive.thriftServer.singleSession"] == "true"
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert conf["spark.sql.catalogImplementation"] == "hive"
    assert conf["spark.hadoop.hive.server2.thrift.bind.host"] == "0.0.0.0"
    assert conf["spark.hadoop.hive.server2.thrift.port"] == "10123"


def test_all_state_lives_under_the_home(tmp_path: Path) -> None:
    conf = spark_conf(ServerConfig(home=tmp_path))
    assert conf["spark.sql.warehouse.dir"] == str(tmp_path / "warehouse")
    assert conf["spark.hadoop.javax.jdo.option.ConnectionURL"] == (
        f"jdbc:derby:;databaseName={tmp_path / 'metastore_db'};create=true"
    )
    assert f"-Dderby.system.home={tmp_path}" in conf["spark.driver.extraJavaOptions"]
    assert conf["spark.local.dir"] == str(tmp_path / "tmp")
    assert conf["spark.driver.extraClassPath"] == str(tmp_path / "hive-stubs")


def test_only_the_servers_own_metastore_is_cached(tmp_path: Path) -> None:
    """DataNucleus may keep what it read only where no other process writes the metastore."""
    own = spark_conf(ServerConfig(home=tmp_path))
    assert own["spark.hadoop.datanucleus.cache.level2"] == "true"
    assert own["spark.hadoop.datanucleus.cache.level2.type"] == "soft"
    for key, value in (
        ("spark.hadoop.javax.jdo.option.ConnectionURL", "jdbc:mysql://db/metastore"),
        ("spark.hadoop.hive.metastore.uris", "thrift://metastore:9083"),
    ):
        shared = spark_conf(ServerConfig(home=tmp_path, conf={key: value}))
        assert "spark.hadoop.datanucleus.cache.level2" not in shared
        assert "spark.hadoop.datanucleus.cache.level2.type" not in shared


def test_the_metastore_keeps_a_runs_compiled_statements(tmp_path: Path) -> None:
    """Derby's default of 100 compiled statements made it compile most of a run's again."""
    options = spark_conf(ServerConfig(home=tmp_path))["spark.driver.extraJavaOptions"].split()
    assert f"-Dderby.language.statementCacheSize={DERBY_STATEMENTS}" in options
    assert DERBY_STATEMENTS > 100


def test_a_local_server_collects_garbage_for_throughput(tmp_path: Path) -> None:
    """One JVM does a local server's work in batches: the parallel collector, not G1."""
    options = spark_conf(ServerConfig(home=tmp_path))["spark.driver.extraJavaOptions"].split()
    assert options.count(LOCAL_COLLECTOR) == 1
    cluster = spark_conf(ServerConfig(home=tmp_path, master="spark://head:7077"))
    assert LOCAL_COLLECTOR not in cluster["spark.driver.extraJavaOptions"].split()


def test_a_local_server_compiles_only_hot_methods_with_c2(tmp_path: Path) -> None:
    """The planner's lukewarm methods reached C2 a few hundred per run, on the run's cores."""
    options = spark_conf(ServerConfig(home=tmp_path))["spark.driver.extraJavaOptions"].split()
    for threshold in LOCAL_C2_THRESHOLDS:
        assert options.count(threshold) == 1
    cluster = spark_conf(ServerConfig(home=tmp_path, master="spark://head:7077"))
    assert not set(LOCAL_C2_THRESHOLDS) & set(cluster["spark.driver.extraJavaOptions"].split())
    own = "-XX:Tier4InvocationThreshold=5000"
    mine = spark_conf(ServerConfig(home=tmp_path, conf={"spark.driver.extraJavaOptions": own}))
    assert mine["spark.driver.extraJavaOptions"].split()[-1] == own


def test_a_users_collector_replaces_the_servers(tmp_path: Path) -> None:
    """Two collectors in one JVM's options stop it from starting."""
    conf = spark_conf(
        ServerConfig(home=tmp_path, conf={"spark.driver.extraJavaOptions": "-XX:+UseZGC"})
    )
    options = conf["spark.driver.extraJavaOptions"].split()
    assert LOCAL_COLLECTOR not in options
    assert options[-1] == "-XX:+UseZGC"


def test_the_same_generated_code_is_compiled_once(tmp_path: Path) -> None:
    """A class named after its stage's number, which adaptive execution assigns in planning
    order, missed Spark's cache of compiled classes whenever that order moved."""
    conf = spark_conf(ServerConfig(home=tmp_path))
    assert conf["spark.sql.codegen.useIdInClassName"] == "false"
    assert int(conf["spark.sql.codegen.cache.maxEntries"]) > 100


def test_jobs_of_concurrent_models_share_the_cores(tmp_path: Path) -> None:
    """The `default` pool, where every statement runs, schedules its own jobs fairly: Spark's
    FAIR mode alone would leave them first in, first out."""
    config = ServerConfig(home=tmp_path)
    conf = spark_conf(config)
    assert conf["spark.scheduler.mode"] == "FAIR"
    assert conf["spark.scheduler.allocation.file"] == str(tmp_path / "scheduler-pools.xml")
    pools = {
        pool.get("name"): pool.findtext("schedulingMode")
        for pool in ElementTree.fromstring(SCHEDULER_POOLS).iter("pool")
    }
    assert pools == {"default": "FAIR"}


def test_a_relative_home_becomes_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The server runs detached; a relative path would depend on its working directory."""
    monkeypatch.chdir(tmp_path)
    conf = spark_conf(ServerConfig(home=Path("data")))
    assert conf["spark.sql.warehouse.dir"] == str(tmp_path.resolve() / "data" / "warehouse")


def test_conf_overrides_win(tmp_path: Path) -> None:
    overrides = {
        "spark.sql.session.timeZone": "Asia/Shanghai",
        "spark.sql.shuffle.partitions": "200",
        "spark.executor.memory": "2g",
        # A local master's default, e.g. for a warehouse in object storage.
        "spark.hadoop.parquet.hadoop.vectored.io.enabled": "true",
    }
    conf = spark_conf(ServerConfig(home=tmp_path, conf=overrides))
    assert conf | overrides == conf


def test_a_users_java_options_and_class_path_add_to_the_servers(tmp_path: Path) -> None:
    overrides = {
        "spark.driver.extraJavaOptions": "-Xss4m",
        "spark.driver.extraClassPath": "/opt/jars/extra.jar",
    }
    servers = spark_conf(ServerConfig(home=tmp_path))["spark.driver.extraJavaOptions"]
    conf = spark_conf(ServerConfig(home=tmp_path, conf=overrides))
    assert conf["spark.driver.extraJavaOptions"] == f"{servers} -Xss4m"
    assert conf["spark.driver.extraClassPath"] == f"{tmp_path / 'hive-stubs'}:/opt/jars/extra.jar"


@pytest.mark.parametrize("master", ["local[*]", "local[2]", "local"])
def test_local_masters_get_few_shuffle_partitions(tmp_path: Path, master: str) -> None:
    assert (
        spark_conf(ServerConfig(home=tmp_path, master=master))["spark.sql.shuffle.partitions"]
        == "8"
    )


@pytest.mark.parametrize("master", ["spark://head:7077", "yarn", "k8s://https://api:6443"])
def test_clusters_keep_sparks_shuffle_partitions(tmp_path: Path, master: str) -> None:
    assert "spark.sql.shuffle.partitions" not in spark_conf(
        ServerConfig(home=tmp_path, master=master)
    )


@pytest.mark.parametrize(
    ("master", "cores"),
    [("local", 1), ("local[2]", 2), ("local[3,4]", 3), ("local[*]", os.cpu_count())],
)
def test_local_scans_and_shuffles_are_cut_into_four_tasks_per_core(
    tmp_path: Path, master: str, cores: int
) -> None:
    """One task per core left a core idle behind the largest of a few unequal files."""
    conf = spark_conf(ServerConfig(home=tmp_path, master=master))
    assert conf["spark.sql.files.minPartitionNum"] == str(4 * cores)
    # Shuffles too: adaptive execution merged a large stage's partitions into one per core.
    assert conf["spark.sql.adaptive.coalescePartitions.minPartitionNum"] == str(4 * cores)


@pytest.mark.parametrize("master", ["spark://head:7077", "yarn", "local[x]", "local-cluster"])
def test_other_masters_keep_sparks_scan_split_and_parquets_reads(
    tmp_path: Path, master: str
) -> None:
    assert local_cores(master) is None
    conf = spark_conf(ServerConfig(home=tmp_path, master=master))
    assert "spark.sql.files.minPartitionNum" not in conf
    assert "spark.sql.adaptive.coalescePartitions.minPartitionNum" not in conf
    assert "spark.hadoop.parquet.hadoop.vectored.io.enabled" not in conf
    assert "spark.sql.sources.parallelPartitionDiscovery.threshold" not in conf


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]"])
def test_local_masters_list_partitions_without_a_job(tmp_path: Path, master: str) -> None:
    """On one machine a listing job costs more than the driver's own listing."""
    conf = spark_conf(ServerConfig(home=tmp_path, master=master))
    assert conf["spark.sql.sources.parallelPartitionDiscovery.threshold"] == str(2**31 - 1)


@pytest.mark.parametrize("master", ["local", "local[2]", "local[*]"])
def test_local_masters_read_parquet_pages_without_vectored_reads(
    tmp_path: Path, master: str
) -> None:
    """Each vectored read of a local file ran on a thread of its own on two cores."""
    conf = spark_conf(ServerConfig(home=tmp_path, master=master))
    assert conf["spark.hadoop.parquet.hadoop.vectored.io.enabled"] == "false"


@pytest.mark.parametrize("master", ["local[2]", "spark://head:7077", "yarn"])
def test_partitions_are_chosen_by_name_when_the_metastore_cannot_filter(
    tmp_path: Path, master: str
) -> None:
    """A read of a landing table's new loads fetched every load's partition: the metastore
    is given no filter on a timestamp partition column."""
    conf = spark_conf(ServerConfig(home=tmp_path, master=master))
    assert conf["spark.sql.hive.metastorePartitionPruningFastFallback"] == "true"


# --- port_in_use -----------------------------------------------------------------------------


def test_a_listening_port_is_in_use() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        assert port_in_use("127.0.0.1", listener.getsockname()[1])


def test_a_closed_port_is_free() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert not port_in_use("127.0.0.1", port)


# --- last_error_line -------------------------------------------------------------------------


def test_last_error_line_skips_stack_frames(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        "INFO SparkContext: Running Spark version 4.1\n"
        "ERROR SparkContext: Error initializing SparkContext.\n"
        "java.net.BindException: Address already in use\n"
        "\tat sun.nio.ch.Net.bind(Net.java:565)\n"
        "\tat org.apache.thrift.TServerSocketException.<init>(TServerSocket.java:1)\n"
        "INFO ShutdownHookManager: Shutdown hook called\n"
    )
    assert last_error_line(log) == "java.net.BindException: Address already in use"


def test_last_error_line_finds_python_errors(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "cli.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'pyspark'\n"
    )
    assert last_error_line(log) == "ModuleNotFoundError: No module named 'pyspark'"


def test_last_error_line_without_errors_gives_the_last_line(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("starting\n  killed  \n")
    assert last_error_line(log) == "killed"


def test_last_error_line_is_capped(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("Exception: " + "x" * 1000 + "\n")
    assert len(last_error_line(log)) == 300


def test_last_error_line_of_an_empty_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    log.write_text("")
    assert last_error_line(log) == "the log is empty"


def test_last_error_line_without_a_log(tmp_path: Path) -> None:
    assert last_error_line(tmp_path / "missing.log") == "no log written"


# --- find_java -------------------------------------------------------------------------------


def test_java_home_without_java_is_named_in_the_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    with pytest.raises(ServerError, match=re.escape(f"JAVA_HOME={tmp_path} has no bin/java")):
        find_java()


def test_java_home_with_java_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("#!/bin/sh\n")
    java.chmod(0o755)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path))
    assert find_java() == str(java)


def test_no_java_at_all_says_how_to_get_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ServerError, match=r"^Java not found: .* or set JAVA_HOME$"):
        find_java()


# --- read_pid --------------------------------------------------------------------------------


def test_stale_pid_file_is_ignored(tmp_path: Path) -> None:
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    config = ServerConfig(home=tmp_path)
    config.pid_file.write_text(finished.stdout)
    assert read_pid(config) is None


@pytest.mark.parametrize("content", [None, "", "not a pid\n"])
def test_missing_or_garbled_pid_file_is_ignored(tmp_path: Path, content: str | None) -> None:
    config = ServerConfig(home=tmp_path)
    if content is not None:
        config.pid_file.write_text(content)
    assert read_pid(config) is None


def test_live_pid_is_returned(tmp_path: Path) -> None:
    config = ServerConfig(home=tmp_path)
    config.pid_file.write_text(f"{os.getpid()}\n")
    assert read_pid(config) == os.getpid()


def test_exited_unreaped_child_is_not_running(tmp_path: Path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)
        config = ServerConfig(home=tmp_path)
        config.pid_file.write_text(f"{child.pid}\n")
        assert read_pid(config) is None
    finally:
        child.wait()


# --- check_home ------------------------------------------------------------------------------


def made_home(home: Path) -> ServerConfig:
    """A home as a first server start leaves it: its record, and a metastore (Derby's folder
    stands for it: check_home looks only at whether it exists)."""
    config = ServerConfig(home=home)
    check_home(config)
    config.metastore_dir.mkdir()
    return config


def test_a_new_home_records_where_its_metastore_is_created(tmp_path: Path) -> None:
    config = made_home(tmp_path / "home")
    assert config.created_at_file.read_text() == f"{(tmp_path / 'home').resolve()}\n"
    check_home(config)  # served where it was created: no error


@pytest.mark.parametrize("move", [shutil.copytree, shutil.move])
def test_a_copied_or_moved_home_is_refused(tmp_path: Path, move: Any) -> None:
    """Its metastore places every table in the original directory: a server on the copy would
    write there, one on a moved home would find nothing of its own."""
    made_home(tmp_path / "home")
    move(tmp_path / "home", tmp_path / "other")
    with pytest.raises(ServerError) as refused:
        check_home(ServerConfig(home=tmp_path / "other"))
    assert str(refused.value) == (
        f"this home's metastore was created in {(tmp_path / 'home').resolve()} and keeps its "
        f"tables there: a server on {(tmp_path / 'other').resolve()} would read and write "
        "those. Serve that home, move this one back, or start a new home and load the landing "
        "files again"
    )


def test_a_home_whose_metastore_is_gone_records_its_new_place(tmp_path: Path) -> None:
    made_home(tmp_path / "home")
    shutil.move(tmp_path / "home", tmp_path / "other")
    config = ServerConfig(home=tmp_path / "other")
    shutil.rmtree(config.metastore_dir)
    check_home(config)
    assert config.created_at_file.read_text() == f"{(tmp_path / 'other').resolve()}\n"


def test_a_metastore_older_than_the_record_gets_one(tmp_path: Path) -> None:
    config = ServerConfig(home=tmp_path)
    config.metastore_dir.mkdir()
    check_home(config)
    assert config.created_at_file.read_text() == f"{tmp_path.resolve()}\n"


@pytest.mark.parametrize(
    "key",
    [
        "spark.hadoop.javax.jdo.option.ConnectionURL",
        "spark.hadoop.hive.metastore.uris",
        "spark.sql.warehouse.dir",
    ],
)
def test_a_users_metastore_or_warehouse_is_not_checked(tmp_path: Path, key: str) -> None:
    made_home(tmp_path / "home")
    shutil.copytree(tmp_path / "home", tmp_path / "other")
    config = ServerConfig(home=tmp_path / "other", conf={key: "theirs"})
    check_home(config)
    assert config.created_at_file.read_text() == f"{(tmp_path / 'home').resolve()}\n"


def test_serving_a_copied_home_is_a_one_line_error(tmp_path: Path) -> None:
    """Before Java starts: nothing is written to the original home's tables."""
    made_home(tmp_path / "home")
    shutil.copytree(tmp_path / "home", tmp_path / "other")
    other, port = str(tmp_path / "other"), str(free_port())
    done = subprocess.run(
        [sys.executable, "-m", "cdc_lake.cli", "serve", "--home", other, "--port", port],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.startswith("cdc-lake: error: this home's metastore was created in ")
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "other" / "server.log").exists()


# --- cli -------------------------------------------------------------------------------------


def test_serve_conf_pairs_split_on_the_first_equals() -> None:
    args = cli.build_parser().parse_args(["serve", "--conf", "a=b", "--conf", "c=d=e"])
    assert args.conf == [("a", "b"), ("c", "d=e")]


def test_serve_conf_without_a_value_is_rejected(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.build_parser().parse_args(["serve", "--conf", "novalue"])
    assert exit_info.value.code == 2
    assert "--conf takes key=value, got 'novalue'" in capsys.readouterr().err


def test_load_rejects_an_unknown_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["load", "--format", "nope", "x"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "invalid choice: 'nope'" in err
    assert "dataworks_json" in err


def test_sql_without_a_server_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["sql", "--port", "1", "select 1"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("cdc-lake: error: cannot reach a Spark Thrift server at ")
    assert ":1 " in captured.err
    assert captured.err.count("\n") == 1


def test_status_without_a_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["status", "--home", str(tmp_path)]) == 3
    assert capsys.readouterr().out == "not running\n"


def test_stop_without_a_server(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["stop", "--home", str(tmp_path)]) == 0
    assert capsys.readouterr().out == "no cdc-lake server running\n"
