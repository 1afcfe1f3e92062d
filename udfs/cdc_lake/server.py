"""The embedded default runtime: local Spark with Hive support behind a Thrift server.

dbt-spark talks to a HiveServer2-compatible Thrift endpoint. Starting Spark's own Thrift server
from Python (`HiveThriftServer2.startWithContext`) on a session where the project's UDFs are
already registered, in single-session mode, makes those UDFs visible to every connection
(dbt, PyHive, beeline) without a jar. The same code runs against a cluster with `--master`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from cdc_lake import auth
from cdc_lake.hive_stubs import write_stub_classes

START_TIMEOUT_S = 300.0
STOP_TIMEOUT_S = 60.0
# Compiled statements the metastore's Derby keeps (its default: 100); spark_conf says why.
DERBY_STATEMENTS = 2000
# File scan tasks per core on a local master (Spark's default: one); spark_conf says why.
SCAN_TASKS_PER_CORE = 4
# The garbage collector of a local master's JVM (Java 17's default: G1); spark_conf says why.
LOCAL_COLLECTOR = "-XX:+UseParallelGC"
# When a local master's JVM compiles a method with its optimizing compiler (C2): after four
# times the calls HotSpot waits for by default; spark_conf says why.
LOCAL_C2_THRESHOLDS = (
    "-XX:Tier4InvocationThreshold=20000",
    "-XX:Tier4MinInvocationThreshold=2400",
    "-XX:Tier4CompileThreshold=60000",
)


class ServerError(RuntimeError):
    """A failure to report to the user as one line, without a stack trace."""


@dataclass(frozen=True)
class ServerConfig:
    """Where the server keeps its state and how it listens.

    Authentication and TLS are Spark settings in `conf` (auth.py builds them); `insecure`
    allows listening off loopback without authentication (auth.check_exposure).
    """

    home: Path
    host: str = "127.0.0.1"
    port: int = 10000
    master: str = "local[*]"
    conf: dict[str, str] = field(default_factory=dict)
    insecure: bool = False
    # Jars for Spark's class path (`spark.jars`): Spark's Kafka source (bundled_jars).
    jars: tuple[Path, ...] = ()

    @property
    def pid_file(self) -> Path:
        return self.home / "server.pid"

    @property
    def log_file(self) -> Path:
        return self.home / "server.log"

    @property
    def state_file(self) -> Path:
        return self.home / "server.json"

    @property
    def hive_stubs_dir(self) -> Path:
        """Class-path root of the Hive classes pyspark's jars lack (hive_stubs.py)."""
        return self.home.resolve() / "hive-stubs"

    @property
    def tmp_dir(self) -> Path:
        """Scratch space of the server's JVM: Spark's local directory and the JVM's temporary
        directory (spark_conf), created before the JVM starts (run_foreground)."""
        return self.home.resolve() / "tmp"

    @property
    def metastore_dir(self) -> Path:
        """The server's own metastore, a Derby database (spark_conf)."""
        return self.home.resolve() / "metastore_db"

    @property
    def created_at_file(self) -> Path:
        """The directory the home's metastore was created in (check_home)."""
        return self.home.resolve() / "created-at"

    @property
    def scheduler_pools_file(self) -> Path:
        """Spark's fair scheduler allocation file (SCHEDULER_POOLS)."""
        return self.home.resolve() / "scheduler-pools.xml"


# Every statement runs in Spark's `default` pool (one Thrift session). Spark's FAIR mode
# alone shares cores between pools, not between the jobs of one pool: the pool itself must
# say FAIR.
SCHEDULER_POOLS = """<?xml version="1.0"?>
<allocations>
  <pool name="default">
    <schedulingMode>FAIR</schedulingMode>
    <weight>1</weight>
    <minShare>0</minShare>
  </pool>
</allocations>
"""


# Settings that point the server at a metastore other processes may write.
OUTSIDE_METASTORE_KEYS = frozenset(
    {"spark.hadoop.javax.jdo.option.ConnectionURL", "spark.hadoop.hive.metastore.uris"}
)


def bundled_jars(root: Path) -> tuple[Path, ...]:
    """The jars `make setup` fetched for the server (pom.xml, profile spark-kafka) under the
    project root `root`; none when setup has not fetched them (loads from files still work)."""
    return tuple(sorted(jar.resolve() for jar in (root / ".jars" / "spark-kafka").glob("*.jar")))


def owns_metastore(config: ServerConfig) -> bool:
    """Whether the metastore is the home's own Derby database: no `--conf` points the server at
    one that other processes may write."""
    return not OUTSIDE_METASTORE_KEYS & config.conf.keys()


def spark_conf(config: ServerConfig) -> dict[str, str]:
    """Spark settings of the embedded server; `--conf` values override every default.

    Each setting is a row of (setting, value, why); the figures behind the performance
    settings are in udfs/benchmarks/README.md.
    """
    home = config.home.resolve()
    cores = local_cores(config.master)
    java_options = [
        f"-Dderby.system.home={home}",
        f"-Dderby.language.statementCacheSize={DERBY_STATEMENTS}",
        f"-Djava.io.tmpdir={config.tmp_dir}",
    ]
    if cores is not None:
        # A user's own collector wins; a user's own C2 thresholds come later, and the JVM
        # takes the last.
        if not selects_collector(config.conf.get("spark.driver.extraJavaOptions", "")):
            java_options.append(LOCAL_COLLECTOR)
        java_options += LOCAL_C2_THRESHOLDS
    # fmt: off
    rows: list[tuple[str, str, str]] = [
        ("spark.app.name", "cdc-lake", "the name in Spark's logs"),
        ("spark.sql.catalogImplementation", "hive", "tables outlive the server (metastore)"),
        ("spark.sql.warehouse.dir", str(home / "warehouse"), "tables in the data folder"),
        ("spark.hadoop.javax.jdo.option.ConnectionURL",
         f"jdbc:derby:;databaseName={config.metastore_dir};create=true",
         "the data folder's own Derby metastore"),
        ("spark.driver.extraJavaOptions", " ".join(java_options),
         "Derby keeps every statement a run sends compiled; temporary files in the data folder;"
         " on a local master the throughput collector, and C2 only for methods called often"),
        ("spark.driver.extraClassPath",
         os.pathsep.join([str(config.hive_stubs_dir), *map(str, config.jars)]),
         "Hive classes pyspark's jars lack (hive_stubs.py); the jars below, which the driver"
         " (this process) needs on its own class path to find the `kafka` source"),
        ("spark.local.dir", str(config.tmp_dir), "scratch space in the data folder"),
        ("spark.hadoop.hive.server2.thrift.bind.host", config.host, "--host"),
        ("spark.hadoop.hive.server2.thrift.port", str(config.port), "--port"),
        ("spark.sql.hive.thriftServer.singleSession", "true",
         "one session for every connection: the UDFs registered here are visible to dbt"),
        ("spark.sql.session.timeZone", "UTC", "timestamps mean the same on every machine"),
        ("spark.sql.mapKeyDedupPolicy", "LAST_WIN",
         "a message with a repeated key must not fail a whole run"),
        ("spark.sql.sources.partitionOverwriteMode", "dynamic",
         "insert_overwrite replaces only the partitions a run writes"),
        ("spark.sql.defaultColumn.useNullsForMissingDefaultValues", "false",
         "an `insert ... by name` lacking a column fails instead of writing NULL into it"),
        ("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS",
         "min/max statistics on `loaded_at`: a run skips every older file"),
        ("spark.sql.optimizer.windowGroupLimitThreshold", "-1",
         "first-row-per-key windows keep nearly every row: a partial limit only sorts"),
        ("spark.sql.constraintPropagation.enabled", "false",
         "inferred filters cost staging most of its planning; the models write their own"),
        ("spark.sql.codegen.cache.maxEntries", "2048",
         "room for every query class a run generates (Spark keeps 100)"),
        ("spark.sql.codegen.useIdInClassName", "false",
         "the same code keeps one class name across runs, so the cache above hits"),
        ("spark.sql.ui.explainMode", "simple",
         "a 1% run's plans are most of its work; the `formatted` text details every operator"),
        ("spark.hadoop.hive.server2.enable.doAs", "false",
         "no impersonation on one machine: it rebuilt the metastore client per statement"),
        ("spark.hadoop.hive.server2.async.exec.threads", "8",
         "statement threads are kept, not started anew for each statement"),
        ("spark.hadoop.hive.server2.async.exec.keepalive.time", "86400", "the same"),
        ("spark.driver.memory", "6g",
         "headroom for planning the union of every enabled staging table"),
        ("spark.ui.showConsoleProgress", "false", "the log is for people"),
        ("spark.ui.enabled", "false",
         "the web UI has no login and listens on every interface: --conf to turn it on"),
        ("spark.scheduler.mode", "FAIR",
         "dbt runs two models at once: a small job gets the next free core"),
        ("spark.scheduler.allocation.file", str(config.scheduler_pools_file),
         "the default pool is FAIR too (SCHEDULER_POOLS)"),
        ("spark.sql.hive.metastorePartitionPruningFastFallback", "true",
         "a read of new loads fetches only their partitions, not every load's"),
    ]
    # fmt: on
    if cores is not None:
        scan_tasks = str(SCAN_TASKS_PER_CORE * cores)
        # fmt: off
        rows += [
            ("spark.sql.shuffle.partitions", "8",
             "a small default for one machine (a cluster keeps Spark's own); AQE coalesces"),
            ("spark.sql.files.minPartitionNum", scan_tasks,
             "parquet splits only at files and row groups: one task per core left one idle"),
            ("spark.sql.adaptive.coalescePartitions.minPartitionNum", scan_tasks,
             "AQE would merge a large stage's shuffle into one unequal task per core"),
            ("spark.hadoop.parquet.hadoop.vectored.io.enabled", "false",
             "local files gain nothing from it, and it starts a thread per read on 2 cores"),
            ("spark.sql.sources.parallelPartitionDiscovery.threshold", str(2**31 - 1),
             "on one machine a listing job costs more than the driver's own listing"),
        ]
        # fmt: on
    if owns_metastore(config):
        rows += [
            (key, value, "no other process writes this Derby: keep what it read")
            for key, value in (
                ("spark.hadoop.datanucleus.cache.level2", "true"),
                ("spark.hadoop.datanucleus.cache.level2.type", "soft"),
            )
        ]
    if config.jars:
        rows.append(
            ("spark.jars", ",".join(str(jar) for jar in config.jars),
             "Spark's Kafka source, shipped to a cluster's executors")
        )  # fmt: skip
    defaults = {key: value for key, value, _why in rows}
    conf = defaults | config.conf
    # A user's options, class path and jars add to ours: Derby's files stay in the home, the
    # stubs stay on the class path, and the Kafka source stays loadable.
    for key, separator in (
        ("spark.driver.extraJavaOptions", " "),
        ("spark.driver.extraClassPath", os.pathsep),
        ("spark.jars", ","),
    ):
        if key in config.conf and key in defaults:
            conf[key] = f"{defaults[key]}{separator}{config.conf[key]}"
    return conf


def selects_collector(java_options: str) -> bool:
    """Whether JVM options choose a garbage collector (`-XX:+UseG1GC`, `-XX:+UseZGC`, ...):
    a second choice beside ours would stop the JVM from starting."""
    return any(
        option.startswith("-XX:+Use") and option.endswith("GC") for option in java_options.split()
    )


def local_cores(master: str) -> int | None:
    """The cores a local master runs tasks on (`local`, `local[N]`, `local[*]`, with or
    without a retry count), or None for a cluster, whose Spark defaults are kept."""
    if master == "local":
        return 1
    if not (master.startswith("local[") and master.endswith("]")):
        return None
    threads = master[len("local[") : -1].split(",")[0].strip()
    if threads == "*":
        return os.cpu_count() or 1
    return int(threads) if threads.isdigit() and int(threads) > 0 else None


def find_java() -> str:
    """Path of the `java` binary Spark will use, or a ServerError saying how to get one."""
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.exists():
            return str(candidate)
        raise ServerError(f"JAVA_HOME={java_home} has no bin/java: point it at a JDK 17")
    found = shutil.which("java")
    if not found:
        raise ServerError(
            "Java not found: Spark needs a Java 17 runtime "
            "(Debian: apt-get install openjdk-17-jre-headless), or set JAVA_HOME"
        )
    return found


def port_in_use(host: str, port: int) -> bool:
    """True when something accepts connections on host:port."""
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False


def read_pid(config: ServerConfig) -> int | None:
    """Pid of the running background server, or None (stale pid files are ignored)."""
    try:
        pid = int(config.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None
    with suppress(ChildProcessError):  # our own exited child: reap it, it is not running
        if os.waitpid(pid, os.WNOHANG)[0] == pid:
            return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid


def check_home(config: ServerConfig) -> None:
    """Refuse a home copied or moved from another directory, before anything starts.

    Its metastore keeps every database's and table's location as an absolute path in the
    directory it was created in: a server on a copy would read and write the original's
    tables, and one on a moved home would not find its own. The metastore client pyspark
    ships cannot move a database, so the home records where its metastore was created
    (`created-at`) and is served only there. A home whose metastore predates the record,
    or is gone, gets it now. Not checked with a metastore or warehouse of the user's
    (`--conf`): their locations are the user's to manage.
    """
    if not owns_metastore(config) or "spark.sql.warehouse.dir" in config.conf:
        return
    here = str(config.home.resolve())
    if config.metastore_dir.exists() and config.created_at_file.exists():
        created_at = config.created_at_file.read_text(encoding="utf-8").strip()
        if created_at != here:
            raise ServerError(
                f"this home's metastore was created in {created_at} and keeps its tables "
                f"there: a server on {here} would read and write those. Serve that home, "
                "move this one back, or start a new home and load the landing files again"
            )
        return
    config.home.mkdir(parents=True, exist_ok=True)
    config.created_at_file.write_text(f"{here}\n", encoding="utf-8")


def check_security(config: ServerConfig) -> str:
    """Refuse an exposed server without authentication (auth.check_exposure) before anything
    starts; return the keystore's password ('' without TLS)."""
    conf = spark_conf(config)
    auth.check_exposure(config.host, conf, config.insecure)
    return auth.keystore_password(conf)


def run_foreground(config: ServerConfig) -> None:
    """Start Spark and the Thrift server in this process and serve until SIGTERM/SIGINT."""
    keystore_password = check_security(config)
    check_home(config)
    find_java()
    if port_in_use(config.host, config.port):
        raise ServerError(_port_taken_message(config))
    # The JVM's temporary directory (spark_conf) must exist before the JVM starts.
    config.tmp_dir.mkdir(parents=True, exist_ok=True)
    write_stub_classes(config.hive_stubs_dir)
    config.scheduler_pools_file.write_text(SCHEDULER_POOLS)
    # The Python workers that run the UDFs must use this interpreter (it has the package).
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable

    from pyspark.sql import SparkSession

    from cdc_lake.formats import (
        FORMATS,
        bootstrap_statements,
        kafka_offsets_table,
        landing_table,
        loaded_files_table,
        upgrade_statements,
    )
    from cdc_lake.registry import register_all

    conf = spark_conf(config)
    builder = SparkSession.builder.master(config.master).enableHiveSupport()
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    jvm = spark.sparkContext._jvm
    # Spark's LDAP provider reads a new HiveConf() per login: system properties reach it.
    for key, value in auth.ldap_system_properties(conf).items():
        jvm.java.lang.System.setProperty(key, value)
    if keystore_password:
        # Set in the running JVM: Spark settings given to the builder are on the command line
        # of the java process it starts, where `ps` would show them.
        hadoop_conf = spark.sparkContext._jsc.hadoopConfiguration()
        hadoop_conf.set("hive.server2.keystore.password", keystore_password)
    names = register_all(spark)
    for statement in bootstrap_statements():
        spark.sql(statement)
    for table in [*map(landing_table, FORMATS), loaded_files_table(), kafka_offsets_table()]:
        for statement in upgrade_statements(table, spark.table(table).columns):
            spark.sql(statement)
    thrift = jvm.org.apache.spark.sql.hive.thriftserver.HiveThriftServer2
    thrift.startWithContext(spark._jsparkSession.sqlContext())
    print(
        f"cdc-lake server on {config.host}:{config.port} (master {config.master}; "
        f"{describe_security(conf)}); UDFs: {', '.join(names)}",
        flush=True,
    )

    stopping = False

    def request_stop(signum: int, frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, request_stop)
    signal.signal(signal.SIGINT, request_stop)
    while not stopping:
        time.sleep(0.5)
    print("cdc-lake server stopping", flush=True)
    spark.stop()


def describe_security(conf: dict[str, str]) -> str:
    """'authentication X, TLS' or 'no authentication' for the start-up line and status."""
    mode = conf.get(auth.AUTHENTICATION, "NONE").upper()
    text = f"authentication {mode}" if auth.authenticates(conf) else "no authentication"
    return text + (", TLS" if auth.uses_tls(conf) else "")


def start_background(config: ServerConfig, timeout_s: float = START_TIMEOUT_S) -> int:
    """Start the server as a detached process; return its pid once the port accepts.

    The child inherits the environment, so a keystore password travels there, not in argv.
    """
    check_security(config)
    find_java()
    running = read_pid(config)
    if running is not None:
        raise ServerError(
            f"a cdc-lake server is already running (pid {running}, home {config.home}); "
            "`cdc-lake stop` first"
        )
    if port_in_use(config.host, config.port):
        raise ServerError(_port_taken_message(config))
    check_home(config)
    config.home.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "cdc_lake.cli", "serve", "--foreground"]
    command += ["--home", str(config.home), "--host", config.host, "--port", str(config.port)]
    command += ["--master", config.master]
    if config.insecure:
        command.append("--insecure")
    for key, value in config.conf.items():
        command += ["--conf", f"{key}={value}"]
    with config.log_file.open("ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    config.pid_file.write_text(f"{process.pid}\n")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            config.pid_file.unlink(missing_ok=True)
            raise ServerError(
                f"the server stopped during start-up (exit {process.returncode}): "
                f"{last_error_line(config.log_file)} - full log: {config.log_file}"
            )
        if port_in_use(config.host, config.port):
            config.state_file.write_text(
                json.dumps(
                    {
                        "pid": process.pid,
                        "host": config.host,
                        "port": config.port,
                        "master": config.master,
                        "security": describe_security(spark_conf(config)),
                        "log": str(config.log_file),
                    }
                )
            )
            return process.pid
        time.sleep(0.5)
    os.killpg(process.pid, signal.SIGTERM)
    config.pid_file.unlink(missing_ok=True)
    raise ServerError(
        f"the server did not accept connections within {timeout_s:.0f} s; see {config.log_file}"
    )


def stop(config: ServerConfig, timeout_s: float = STOP_TIMEOUT_S) -> int | None:
    """Stop the background server; returns the pid stopped, or None if none was running."""
    pid = read_pid(config)
    if pid is None:
        config.pid_file.unlink(missing_ok=True)
        return None
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if read_pid(config) is None:
            break
        time.sleep(0.3)
    else:
        os.killpg(pid, signal.SIGKILL)
    config.pid_file.unlink(missing_ok=True)
    config.state_file.unlink(missing_ok=True)
    return pid


def status(config: ServerConfig) -> str | None:
    """One line describing the running server, or None when it is not running."""
    pid = read_pid(config)
    if pid is None:
        return None
    try:
        state = json.loads(config.state_file.read_text())
    except (OSError, ValueError):
        return f"starting or unresponsive (pid {pid}); log: {config.log_file}"
    listening = port_in_use(state["host"], state["port"])
    where = f"{state['host']}:{state['port']}"
    health = "accepting connections" if listening else "NOT accepting connections"
    return (
        f"running (pid {pid}) on {where}, {health}; master {state['master']}; "
        f"{state.get('security', 'security not recorded')}; "
        f"home {config.home}; log {config.log_file}"
    )


def last_error_line(log_file: Path) -> str:
    """The most telling line of a failed start: the last error or exception message."""
    try:
        lines = log_file.read_text(errors="replace").splitlines()
    except OSError:
        return "no log written"
    markers = ("Error", "ERROR", "Exception", "error:")
    for line in reversed(lines):
        if any(marker in line for marker in markers) and not line.startswith("\tat "):
            return line.strip()[:300]
    return lines[-1].strip()[:300] if lines else "the log is empty"


def _port_taken_message(config: ServerConfig) -> str:
    return (
        f"{config.host}:{config.port} is already in use: another server is listening there "
        "(`cdc-lake status` tells whether it is ours); stop it or pass --port"
    )
