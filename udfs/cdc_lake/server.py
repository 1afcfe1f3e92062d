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


def owns_metastore(config: ServerConfig) -> bool:
    """Whether the metastore is the home's own Derby database: no `--conf` points the server at
    one that other processes may write."""
    return not OUTSIDE_METASTORE_KEYS & config.conf.keys()


def spark_conf(config: ServerConfig) -> dict[str, str]:
    """Spark settings of the embedded server; `--conf` values override every default."""
    home = config.home.resolve()
    defaults = {
        "spark.app.name": "cdc-lake",
        "spark.sql.catalogImplementation": "hive",
        "spark.sql.warehouse.dir": str(home / "warehouse"),
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            f"jdbc:derby:;databaseName={config.metastore_dir};create=true"
        ),
        # The metastore's embedded Derby compiles each distinct SQL statement it is sent into
        # a Java class and keeps 100 of them. A dbt run sends it more (DataNucleus' lookups of
        # tables, partitions and columns for every model), so each run parsed, planned and
        # generated most of them again, and the JIT compiled the new classes: about 220
        # classes loaded and 450 unloaded per 1% run at 1 M messages, 100 and none with room
        # for them, and 5-10% less of the server's CPU per run (udfs/benchmarks/HISTORY.md).
        # The JVM's temporary directory is the home's too: Hive's session state puts what a
        # session downloads (`<uuid>_resources`), its scratch space and HiveServer2 each
        # statement's log (`<user>/operation_logs`) under it, and with the system's /tmp every
        # server start left a directory there that no `cdc-lake stop` removed.
        "spark.driver.extraJavaOptions": (
            f"-Dderby.system.home={home} -Dderby.language.statementCacheSize={DERBY_STATEMENTS}"
            f" -Djava.io.tmpdir={config.tmp_dir}"
        ),
        # Hive classes pyspark's jars lack (hive_stubs.py says why); run_foreground writes them.
        "spark.driver.extraClassPath": str(config.hive_stubs_dir),
        "spark.local.dir": str(config.tmp_dir),
        "spark.hadoop.hive.server2.thrift.bind.host": config.host,
        "spark.hadoop.hive.server2.thrift.port": str(config.port),
        # One session for every connection: UDFs registered here are visible to dbt.
        "spark.sql.hive.thriftServer.singleSession": "true",
        "spark.sql.session.timeZone": "UTC",
        # A vendor message with a repeated key must not fail a whole run.
        "spark.sql.mapKeyDedupPolicy": "LAST_WIN",
        "spark.sql.sources.partitionOverwriteMode": "dynamic",
        # An `insert ... by name` (every incremental run, macro incremental_insert_sql) whose
        # query lacks a column of the table fails instead of writing NULL into it: a model
        # whose columns changed needs --full-refresh, never a column silently emptied.
        "spark.sql.defaultColumn.useNullsForMissingDefaultValues": "false",
        # Parquet keeps min/max statistics of TIMESTAMP_MICROS columns that Spark filters on
        # (not of the legacy INT96): a run that reads `loaded_at > <its watermark>` from an
        # appended table skips every older file instead of reading all of history.
        "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
        # The models keep the first row per event_id or key (`row_number() ... = 1`), where
        # duplicates are rare; Spark's partial per-group limit would sort every row before the
        # shuffle for nothing (it cost the change log a third of its full build).
        "spark.sql.optimizer.windowGroupLimitThreshold": "-1",
        # Constraint propagation (filters inferred from every projection's expressions) took
        # 13 of the 15 s Spark spent planning the DataWorks staging query, which runs in
        # under a second on a run with nothing new; the models write their filters themselves.
        "spark.sql.constraintPropagation.enabled": "false",
        # Spark keeps 100 compiled query classes by default; one run of the project makes
        # about 400 (staging's parse alone is dozens), so each run compiled nearly all of
        # them again: 300-400 Janino compilations, 3-4 s of a 2-core incremental run. With
        # room for them, a run compiles only the few whose code holds its own literals.
        "spark.sql.codegen.cache.maxEntries": "2048",
        # Spark names a generated class after its stage's number in the query, and adaptive
        # execution numbers the stages in the order they are planned, which moves between
        # runs: the same code under another name missed the cache above, so a run compiled
        # again classes it already had (about a dozen in some 1% runs, the history fold's
        # 3,300-line stage among them), each new to the JIT too.
        "spark.sql.codegen.useIdInClassName": "false",
        # Spark writes each statement's physical plan as text into its listener events, and
        # again at every re-plan of adaptive execution, whether or not a UI reads them; the
        # default `formatted` text details every operator. A 1% run's plans are most of its
        # work (its tasks use a tenth of the server's CPU), and cdc_table_schemas' plan is
        # re-planned at each of its ten stages. The statements of a 1% run at 100,000
        # messages, replayed 14 times on a fresh server, median of the last seven: 10.48 and
        # 10.21 s against 10.77 and 10.64 s with `formatted`; whole runs did not show it
        # beyond their noise (udfs/benchmarks/HISTORY.md).
        "spark.sql.ui.explainMode": "simple",
        # Statements run as the server's user (one machine: nobody to impersonate). With
        # impersonation each dbt node, a new Thrift session with a new user object, made the
        # metastore client and its Hive configuration anew on its statements' threads; and the
        # statement pool started a new thread (and metastore connection) for each of its first
        # 100 statements. Both together were a quarter of the server's CPU in a run with
        # nothing new.
        "spark.hadoop.hive.server2.enable.doAs": "false",
        "spark.hadoop.hive.server2.async.exec.threads": "8",
        "spark.hadoop.hive.server2.async.exec.keepalive.time": "86400",
        # Planning, not data, set the floor: the history delta's plan over the view chain
        # row_versions -> change_log -> staged_events (a union of every enabled staging
        # table) took a 4 GiB heap to OutOfMemoryError with all 14 formats, truncates and
        # partial changes. int_cdc__row_versions is a table now (a fifth of that planning);
        # the heap stays as headroom for a deployment's wider unions.
        "spark.driver.memory": "6g",
        "spark.ui.showConsoleProgress": "false",
        # Spark's web UI has no authentication, can kill jobs and shows every statement's
        # text, and listens on all interfaces whatever --host says (only SPARK_LOCAL_IP moves
        # it, which also moves the driver's address executors connect to): off unless asked
        # for with --conf spark.ui.enabled=true.
        "spark.ui.enabled": "false",
        # dbt runs two models at once. In FIFO order a model's small job (a probe, one of the
        # history delta's dozen small stages) waited for every queued task of the other
        # model's large stage; shared fairly it gets the next free core. 10,000-message runs
        # on a 1.5-1.7 M history: 1-2 s (5-8%) shorter (udfs/benchmarks/HISTORY.md).
        "spark.scheduler.mode": "FAIR",
        "spark.scheduler.allocation.file": str(config.scheduler_pools_file),
        # A landing table has a partition per load, by `loaded_at`, a timestamp, and Spark
        # hands the metastore no filter on a timestamp: every read of new loads fetched every
        # partition the table ever got (its location, columns and statistics), five reads a
        # 1% run, so a run's planning grew with the loads ever landed. This fetches the
        # partition names, keeps those the filter selects, and only then their partitions.
        # 3,000 loads, one server: a read of the newest loads 0.10 s against 0.20 s (its CPU
        # 0.13 s against 0.24-0.32 s); 179 loads, a 1% run fetched 79 partitions against 970.
        "spark.sql.hive.metastorePartitionPruningFastFallback": "true",
    }
    cores = local_cores(config.master)
    if cores is not None:
        # Small default for one machine; AQE still coalesces. A cluster keeps Spark's own.
        defaults["spark.sql.shuffle.partitions"] = "8"
        # A scan is cut into at least four tasks per core (Spark's default: one). Parquet
        # splits only at whole files and row groups, so a read cut into one task per core
        # left one core idle for a third of staging's full build at 1 M messages (tasks of
        # 35 and 62 s on two cores), and staging's few unequal files passed the imbalance on
        # to the models after it (udfs/benchmarks/HISTORY.md).
        defaults["spark.sql.files.minPartitionNum"] = str(SCAN_TASKS_PER_CORE * cores)
        # And a shuffle's output as many (AQE's default: one per core, two here). Adaptive
        # execution merged each large stage's eight shuffle partitions into two, so one
        # unequal task kept a core idle; a stage under 1 MB per core is still merged into
        # one (a 1% run's stages). Documented as deprecated, still read by Spark 4.1. 100,000
        # messages, one server each: full builds 27.2 s against 31.4 s (51.0 s of CPU against
        # 59.1 s); 1 M: udfs/benchmarks/HISTORY.md.
        defaults["spark.sql.adaptive.coalescePartitions.minPartitionNum"] = defaults[
            "spark.sql.files.minPartitionNum"
        ]
        # Parquet reads a file's pages as asynchronous "vectored" reads, for stores where a
        # read waits on the network. A local master reads this machine's files, which gain
        # nothing from it, and Java starts a new thread for each such read where its common
        # fork-join pool has one worker (two cores or fewer: some 1,900 threads a 1% run,
        # HISTORY stop 66). The history delta's read of the stored versions of a run's keys
        # (a few pages of each of 14-17 files) spent 0.8-1.1 s against 0.25-0.38 s with
        # plain reads. 1 M `time`, one server, six pairs of 1% runs alternating: 7.3-8.3 s
        # (median 8.0 s) against 8.2-9.5 s (8.6 s), each pair shorter without
        # (udfs/benchmarks/HISTORY.md). A user's --conf wins, e.g. for a warehouse in object
        # storage.
        defaults["spark.hadoop.parquet.hadoop.vectored.io.enabled"] = "false"
        # A read of a partitioned table lists the files of the partitions it reads, and past
        # 32 of them Spark lists them with a job of a task per partition. On a local master
        # that job's tasks list this machine's directories in this JVM, as the driver would
        # without one, after scheduling a task for each: the history delta's read of its
        # stored versions (a partition for every run since the base was last rewritten)
        # listed them with a job once they were more than 32, on the critical path of each
        # 1% run: 0.42 s of the statement's 3.8 s on a server still warming up, 0.11-0.14 s
        # on a warm one. One read of a table after `refresh table`, one server, job against
        # driver: 52 partitions 0.49 s against 0.26 s, 100 partitions 0.42 against 0.14 s,
        # 1,000 2.74 against 0.58 s, 3,000 8.0 against 1.5 s. So never a job here.
        defaults["spark.sql.sources.parallelPartitionDiscovery.threshold"] = str(2**31 - 1)
        # One JVM does all the work here, in batches nobody waits on mid-way, so the
        # throughput collector: G1's concurrent marking and remembered sets cost CPU that a
        # 2-core server's queries need. 1.8 M messages, one server per collector, one after
        # the other: full builds 178.9 s against 185.8 s (339.5 against 354.7 s of CPU),
        # seven 1% runs 6% less CPU on average (udfs/benchmarks/HISTORY.md). A user's own collector
        # wins.
        if not selects_collector(config.conf.get("spark.driver.extraJavaOptions", "")):
            defaults["spark.driver.extraJavaOptions"] += f" {LOCAL_COLLECTOR}"
        # A 1% run plans some fifty statements, and the planner's many methods cross C2's
        # call counts a few hundred at a time, run after run: 510 first compilations by C2
        # in each 1% run at 100,000 messages (JFR), its thread busy for about a third of the
        # server's CPU on two cores where the run's work needs both. At four times the
        # counts, a method called that rarely keeps C1's code; a long loop still reaches C2
        # mid-run (on-stack replacement) at the default count of its iterations.
        # 100,000 messages, one server each: 1% runs 12.6 and 12.4 s against 13.6 and 13.8 s,
        # full builds 29.1 and 25.3 s against 26.9 and 26.7 s. 1 M with dbt's three threads
        # (profiles.yml), where the cores C2 no longer takes go to a third model: 1% runs
        # 14.0 s against 15.7 s, full builds 75.4 s against 87.4 s (udfs/benchmarks/HISTORY.md).
        # A user's own thresholds come later in the options, and the JVM takes the last.
        defaults["spark.driver.extraJavaOptions"] += " " + " ".join(LOCAL_C2_THRESHOLDS)
    if owns_metastore(config):
        # The metastore is this JVM's own Derby database, which no other process writes, so
        # DataNucleus may keep the objects it reads (tables, storage descriptors, columns)
        # between statements instead of fetching each again from Derby: every table a
        # statement names is looked up anew (600 lookups in a 1% run). A metastore that
        # others write (a URL or a metastore service of the user's) is left uncached. The
        # replay of a 1% run's statements (as for spark.sql.ui.explainMode above): 10.37 and
        # 10.24 s against 10.77 and 10.64 s uncached; whole runs did not show it beyond their
        # noise (udfs/benchmarks/HISTORY.md).
        defaults["spark.hadoop.datanucleus.cache.level2"] = "true"
        defaults["spark.hadoop.datanucleus.cache.level2.type"] = "soft"
    conf = defaults | config.conf
    # A user's options and class path add to ours: Derby's files stay in the home, and the
    # stubs stay on the class path.
    for key, separator in (
        ("spark.driver.extraJavaOptions", " "),
        ("spark.driver.extraClassPath", os.pathsep),
    ):
        if key in config.conf:
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
    for table in [*map(landing_table, FORMATS), loaded_files_table()]:
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
