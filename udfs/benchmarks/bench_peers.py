"""cdc-lake against the peer a user would otherwise run: Spark 4.2's AUTO CDC into Iceberg.

The same simulated stream goes through two pipelines on this machine, one after the other:

  cdc-lake, as a user runs it: `cdc-lake load` of the messages' files into the landing table
  of a Spark Thrift server of the benchmark's own, then `dbt build` (every model and test;
  `--dbt-command run` and `--select` narrow it);
  the peer, as a user would write it: Spark Declarative Pipelines (pyspark 4.2 with its
  `pipelines` extra, in a virtual environment the benchmark makes under .peer/, not the
  project's), a pipeline that reads the same files as a stream (`from_json`, `explode` of
  Canal's multi-row messages) into a change stream and an AUTO CDC flow (keys, sequence,
  deletes, SCD type 1) into an Apache Iceberg table of a local Hadoop catalog, run with
  `spark-pipelines run` (udfs/benchmarks/peer/).

For each workload: the full build of `--messages` messages, `--runs` incremental runs each
after 1% more, `--runs` runs with nothing new (the ratios take the medians), then the live rows
of both current states against each other and against the simulated database: they must
agree, or the benchmark exits 1. It prints each side's seconds and cdc-lake / peer.

Workloads: `canal-random`, `canal-time`, `debezium-random`, `debezium-time` (default: all):
bench_pipeline.py's `random` (5 tables, `--keys` keys at random, 60/30/10 inserts, updates,
deletes) and `time` (increasing keys, changes among the latest) streams, as open-source Canal
flat messages (1 to 3 rows each) or as Debezium JSON without schemas (one row each, in kcat -J
envelopes with the key). Both streams have no truncates and no schema changes, which the peer
cannot express (AUTO CDC has no truncate in Spark 4.2; its table's columns are fixed); the peer
reads Canal's full row images (`data`) and not the partial `old`, which the current state does
not need. What each side runs on: cdc-lake's server keeps running between runs, as it is
deployed; `spark-pipelines run` starts its Spark anew each run, as it is used (the output says
how much of each run that is). Both get 6g of driver memory, every core, and 8 shuffle
partitions.

Iceberg publishes no runtime for Spark 4.2 on the Maven Central this machine reaches: the peer
runs Iceberg's runtime for Spark 4.1 (pom.xml profile `peer`) behind a catalog of ours that
Spark 4.2 accepts (peer/IcebergTables.java, compiled here; bytecode verification off, since
Iceberg's view classes no longer link against Spark 4.2 and are never used).

    .venv/bin/python udfs/benchmarks/bench_peers.py --messages 1000000

The figures and what they settled: udfs/benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import bench_pipeline
from bench_load import benchmark_server, free_port, line, timed
from bench_pipeline import (
    COLUMNS,
    RANDOM_TABLES,
    CanalStream,
    Change,
    RandomStream,
    TimeStream,
    canal_message,
    dbt,
    load,
)

from cdc_lake import server
from cdc_lake.client import connect, run

PROJECT_ROOT = Path(__file__).resolve().parents[2]
PEER_SOURCES = Path(__file__).resolve().parent / "peer"
PEER_HOME = PROJECT_ROOT / ".peer"  # the peer's virtual environment and compiled catalog
PEER_JARS = PROJECT_ROOT / ".jars" / "peer"
WORKLOADS = {
    "canal-random": ("canal_json", "random"),
    "canal-time": ("canal_json", "time"),
    "debezium-random": ("debezium_json", "random"),
    "debezium-time": ("debezium_json", "time"),
}
DATABASE = "bench"
DEBEZIUM_TOPIC = "bench"  # Debezium's topic prefix: topics are bench.<db>.<table>
FILES = 10  # the full build's messages are written as this many files; a 1% batch as one
# A row as both sides show it: (source table, id, status, amount, updated_at), all text.
Row = tuple[str, str, str, str, str]


@dataclass(frozen=True)
class Batch:
    """Files of messages that arrive together, and how many messages they hold."""

    paths: list[Path]
    messages: int


# ---------------------------------------------------------------- the simulated stream


class Simulation:
    """A stream of bench_pipeline.py's simulated MySQL database in one format, and the rows
    that database holds, as the format writes their values."""

    def __init__(self, fmt: str, keys_kind: str, keys: int, seed: int) -> None:
        self.fmt = fmt
        self.stream: CanalStream = (
            RandomStream(RANDOM_TABLES, keys, seed)
            if keys_kind == "random"
            else TimeStream(RANDOM_TABLES, seed)
        )
        self.rows: dict[tuple[str, str], Row] = {}
        self.offset = 0  # the Kafka offset of the next Debezium message

    def row(self, table: str, values: tuple[str, ...]) -> Row:
        key, status, amount, updated_at = values
        if self.fmt == "debezium_json":  # a DATETIME is epoch milliseconds in Debezium's JSON
            updated_at = str(epoch_ms(updated_at))
        return (f"{DATABASE}.{table}", key, status, amount, updated_at)

    def messages(self, count: int) -> Iterator[str]:
        """At least `count` messages (a Canal change is one message, a Debezium one a message
        per row), applying each change to the database."""
        sent = 0
        while sent < count:
            change = self.stream.next_change()
            for values, _ in change.rows:
                row = self.row(change.table, values)
                if change.kind == "DELETE":
                    del self.rows[row[:2]]
                else:
                    self.rows[row[:2]] = row
            if self.fmt == "canal_json":
                sent += 1
                yield canal_message(change)
            else:
                for index in range(len(change.rows)):
                    sent += 1
                    yield self.debezium_message(change, index)

    def debezium_message(self, change: Change, index: int) -> str:
        values, old = change.rows[index]
        after = debezium_row(values)
        before = None
        if change.kind == "UPDATE":
            previous = old or {}
            before = debezium_row(
                tuple(
                    previous.get(name, value) for name, value in zip(COLUMNS, values, strict=True)
                )
            )
        op = {"INSERT": "c", "UPDATE": "u", "DELETE": "d"}[change.kind]
        if op == "d":
            before, after = after, None
        value = {
            "before": before,
            "after": after,
            "source": {
                "version": "2.7.0.Final", "connector": "mysql", "name": DEBEZIUM_TOPIC,
                "ts_ms": change.es_ms, "snapshot": "false", "db": DATABASE,
                "table": change.table, "server_id": 1, "file": "mysql-bin.000001",
                "pos": 4 + 500 * change.index, "row": index,
            },
            "op": op,
            "ts_ms": change.ts_ms,
        }  # fmt: skip
        envelope = {
            "topic": f"{DEBEZIUM_TOPIC}.{DATABASE}.{change.table}",
            "partition": 0,
            "offset": self.offset,
            "key": json.dumps({"id": int(values[0])}),
            "ts": change.ts_ms,
            "payload": json.dumps(value, separators=(",", ":")),
        }
        self.offset += 1
        return json.dumps(envelope, separators=(",", ":"))

    def write(self, directory: Path, name: str, count: int, files: int) -> Batch:
        """The next `count` messages (or a few more) as `files` JSON Lines files."""
        directory.mkdir(parents=True, exist_ok=True)
        paths = [directory / f"{name}-{part:03d}.jsonl" for part in range(files)]
        handles = [path.open("w", encoding="utf-8") for path in paths]
        written = 0
        try:
            for message in self.messages(count):
                handles[written * files // max(count, 1) % files].write(message + "\n")
                written += 1
        finally:
            for handle in handles:
                handle.close()
        return Batch(paths, written)


def epoch_ms(text: str) -> int:
    return calendar.timegm(time.strptime(text, "%Y-%m-%d %H:%M:%S")) * 1000


def debezium_row(values: tuple[str, ...]) -> dict[str, object]:
    key, status, amount, updated_at = values
    # decimal.handling.mode=string: a DECIMAL is its text
    return {"id": int(key), "status": status, "amount": amount, "updated_at": epoch_ms(updated_at)}


# ---------------------------------------------------------------- the peer


@dataclass
class Peer:
    """The peer's own pyspark and the jars its Spark reads Iceberg with."""

    python: Path
    jars: list[Path]

    @property
    def bin(self) -> Path:
        return self.python.parent


def prepare_peer() -> Peer:
    """The peer's virtual environment (PEER_HOME, made once), Iceberg's runtime (pom.xml,
    fetched as every jar of the project is) and the catalog compiled against both."""
    missing = [tool for tool in ("make", "mvn", "javac", "jar") if shutil.which(tool) is None]
    if missing:
        raise SystemExit(f"the peer needs {', '.join(missing)} (Maven and a JDK): not found")
    subprocess.run(
        ["make", "--no-print-directory", "-s", ".jars/peer/.fetched"], cwd=PROJECT_ROOT, check=True
    )
    iceberg = sorted(PEER_JARS.glob("iceberg-spark-runtime-*.jar"))
    if len(iceberg) != 1:
        raise SystemExit(f"expected one Iceberg runtime in {PEER_JARS}, found {iceberg}")
    venv = PEER_HOME / "venv"
    requirements = PEER_SOURCES / "requirements.txt"
    installed = venv / ".installed"
    if not installed.exists() or installed.read_text() != requirements.read_text():
        print("peer: making its virtual environment (pyspark 4.2, about 450 MB)", flush=True)
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "pip"), "install", "--quiet"]
        subprocess.run([*pip, "-r", str(requirements)], check=True)
        installed.write_text(requirements.read_text())
    python = venv / "bin" / "python"
    catalog = PEER_HOME / "iceberg-tables.jar"
    source = PEER_SOURCES / "IcebergTables.java"
    if not catalog.exists() or catalog.stat().st_mtime < source.stat().st_mtime:
        pyspark_jars = subprocess.run(
            [str(python), "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
            check=True, capture_output=True, text=True,
        ).stdout.strip() + "/jars/*"  # fmt: skip
        classes = PEER_HOME / "classes"
        shutil.rmtree(classes, ignore_errors=True)
        classpath = f"{pyspark_jars}:{iceberg[0]}"
        javac = ["javac", "-proc:none", "-nowarn", "-d", str(classes), "-cp", classpath]
        compiled = subprocess.run([*javac, str(source)], capture_output=True, text=True)
        if compiled.returncode != 0:
            raise SystemExit(f"javac failed:\n{compiled.stdout}{compiled.stderr}")
        subprocess.run(["jar", "cf", str(catalog), "-C", str(classes), "."], check=True)
    return Peer(python, [iceberg[0], catalog])


@dataclass
class PeerProject:
    """One workload's pipeline: spec, Spark configuration, landing folder, Iceberg warehouse."""

    peer: Peer
    directory: Path
    fmt: str
    runs: int = 0

    def __post_init__(self) -> None:
        self.landing.mkdir(parents=True)
        (self.warehouse / "db").mkdir(parents=True)  # a Hadoop catalog's namespace: a folder
        shutil.copytree(PEER_SOURCES / "transformations", self.directory / "transformations")
        spec = {
            "name": "cdc_peer",
            "storage": (self.directory / "storage").as_uri(),
            "catalog": "lake",
            "database": "db",
            "configuration": {
                "cdc_lake.peer.format": self.fmt,
                "cdc_lake.peer.landing": self.landing.as_uri(),
            },
            "libraries": [{"glob": {"include": "transformations/**"}}],
        }
        (self.directory / "spark-pipeline.yml").write_text(json.dumps(spec, indent=2))
        self.conf.mkdir()
        classpath = ":".join(str(jar) for jar in self.peer.jars)
        settings = {
            "spark.driver.memory": "6g",
            "spark.driver.extraClassPath": classpath,
            "spark.driver.extraJavaOptions": (
                "-XX:+UnlockDiagnosticVMOptions -XX:-BytecodeVerificationRemote"
            ),
            "spark.sql.shuffle.partitions": "8",
            "spark.ui.enabled": "false",
            "spark.sql.catalog.lake": "cdclake.peer.IcebergTables",
            "spark.sql.catalog.lake.type": "hadoop",
            "spark.sql.catalog.lake.warehouse": self.warehouse.as_uri(),
        }
        # The one place every JVM `spark-pipelines` starts reads: options given on its command
        # line reach the first, not the Spark Connect server it starts for the pipeline.
        (self.conf / "spark-defaults.conf").write_text(
            "".join(f"{key} {value}\n" for key, value in settings.items())
        )

    @property
    def landing(self) -> Path:
        return self.directory / "landing"

    @property
    def warehouse(self) -> Path:
        return self.directory / "warehouse"

    @property
    def conf(self) -> Path:
        return self.directory / "conf"

    def environment(self) -> dict[str, str]:
        return os.environ | {
            "SPARK_CONF_DIR": str(self.conf),
            "PYSPARK_PYTHON": str(self.peer.python),
            "PATH": f"{self.peer.bin}:{os.environ['PATH']}",
        }

    def arrive(self, batch: Batch) -> None:
        """Files arrive in the landing folder as a whole (a link each), as a stream's do."""
        for path in batch.paths:
            os.link(path, self.landing / path.name)

    def run(self, label: str) -> float:
        """`spark-pipelines run`; prints its seconds and the part before the pipeline ran
        (Spark and the session starting, the graph registered)."""
        self.runs += 1
        log = self.directory / f"run-{self.runs:02d}.log"
        command = [str(self.peer.bin / "spark-pipelines"), "--remote", "local[*]", "run"]
        command += ["--spec", str(self.directory / "spark-pipeline.yml")]
        with log.open("w") as output:
            result, seconds = timed(
                lambda: subprocess.run(
                    command, cwd=self.directory, env=self.environment(),
                    stdout=output, stderr=subprocess.STDOUT, check=False,
                )
            )  # fmt: skip
        text = log.read_text(errors="replace")
        if result.returncode != 0 or "Run is COMPLETED" not in text:
            tail = "\n".join(text.splitlines()[-30:])
            raise SystemExit(f"spark-pipelines run failed ({log}):\n{tail}")
        started = run_started(text)
        overhead = f"  (before the pipeline ran: {started:.0f} s)" if started is not None else ""
        line(label, f"{seconds:9.1f} s{overhead}")
        return seconds

    def state(self) -> set[Row]:
        output = self.directory / "state"
        subprocess.run(
            [str(self.peer.python), str(PEER_SOURCES / "read_state.py"), str(output)],
            env=self.environment(), check=True, capture_output=True,
        )  # fmt: skip
        return state_rows(output)


LOG_TIME = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d): (.*)$", re.MULTILINE)


def run_started(log: str) -> float | None:
    """Seconds from the CLI's first line to its "Starting run...": Spark and the pipeline's
    session starting, the definitions registered, before any data is read."""
    stamps = [(datetime.fromisoformat(stamp), message) for stamp, message in LOG_TIME.findall(log)]
    starts = [stamp for stamp, message in stamps if message == "Starting run..."]
    if not starts:
        return None
    return (starts[0] - stamps[0][0]).total_seconds()


def state_rows(directory: Path) -> set[Row]:
    """The rows of a current state Spark wrote as JSON files (either side: same columns)."""
    rows = set()
    for path in sorted(directory.glob("part-*")):
        with path.open(encoding="utf-8") as handle:
            for text in handle:
                row = json.loads(text)
                rows.add(
                    (
                        row["source_table"],
                        row["id"],
                        row["status"],
                        row["amount"],
                        row["updated_at"],
                    )
                )
    return rows


# ---------------------------------------------------------------- one workload


@dataclass
class Figures:
    name: str
    cdc_lake: dict[str, float] = field(default_factory=dict)
    peer: dict[str, float] = field(default_factory=dict)
    rows: int = 0
    agree: bool = False


STEPS = ("full", "1%", "nothing new")


def cdc_lake_side(
    options: argparse.Namespace, fmt: str, batches: list[Batch], directory: Path
) -> tuple[dict[str, float], set[Row]]:
    """Load and build on a server of its own; each step's seconds (load + dbt) and its rows."""
    port = free_port()
    os.environ.update(
        {
            "CDC_LAKE_PORT": str(port),
            "DBT_TARGET_PATH": str(directory / "target"),
            "DBT_LOG_PATH": str(directory / "logs"),
        }
    )
    command = [options.dbt_command, *(["--select", options.select] if options.select else [])]
    seconds: dict[str, list[float]] = {step: [] for step in STEPS}
    with benchmark_server(directory / "home", port) as config, connect(port=port) as cursor:
        bench_pipeline.server_group = server.read_pid(config)
        try:
            full = batches[0]
            loaded = load(cursor, "cdc-lake: full, load", fmt, full.paths, full.messages)
            if options.dbt_command == "run":  # `dbt build` seeds; a `dbt run` reads the seeds
                loaded += dbt("cdc-lake: full, dbt seed", [fmt], "seed")
            built = dbt(f"cdc-lake: full, dbt {options.dbt_command}", [fmt], *command,
                        "--full-refresh")  # fmt: skip
            seconds["full"].append(loaded + built)
            for number, batch in enumerate(batches[1:], 1):
                label = f"cdc-lake: 1% #{number}, load"
                loaded = load(cursor, label, fmt, batch.paths, batch.messages)
                built = dbt(f"cdc-lake: 1% #{number}, dbt {options.dbt_command}", [fmt], *command)
                seconds["1%"].append(loaded + built)
            for number in range(1, options.runs + 1):
                label = f"cdc-lake: nothing new #{number}, dbt"
                seconds["nothing new"].append(dbt(label, [fmt], *command))
            rows = cdc_lake_state(cursor, directory / "state")
        finally:
            bench_pipeline.server_group = None
    return {step: statistics.median(values) for step, values in seconds.items()}, rows


def cdc_lake_state(cursor: object, output: Path) -> set[Row]:
    """The live rows of `cdc_current_state`, written as JSON by the server (a million rows
    through Thrift would take longer than the runs)."""
    run(
        cursor,
        f"""insert overwrite directory '{output.as_uri()}' using json
        select
            concat(database_name, '.', table_name) as source_table,
            row_data['id'] as id,
            row_data['status'] as status,
            row_data['amount'] as amount,
            row_data['updated_at'] as updated_at
        from cdc_lake.cdc_current_state
        where not is_deleted""",
    )
    return state_rows(output)


def peer_side(
    options: argparse.Namespace, peer: Peer, fmt: str, batches: list[Batch], directory: Path
) -> tuple[dict[str, float], set[Row]]:
    project = PeerProject(peer, directory, fmt)
    seconds: dict[str, list[float]] = {step: [] for step in STEPS}
    project.arrive(batches[0])
    seconds["full"].append(project.run("peer: full"))
    for number, batch in enumerate(batches[1:], 1):
        project.arrive(batch)
        seconds["1%"].append(project.run(f"peer: 1% #{number}"))
    for number in range(1, options.runs + 1):
        seconds["nothing new"].append(project.run(f"peer: nothing new #{number}"))
    return {step: statistics.median(values) for step, values in seconds.items()}, project.state()


def compare(figures: Figures, simulated: set[Row], cdc_lake: set[Row], peer: set[Row]) -> None:
    """Both current states against the simulated database; the first differences named."""
    figures.rows = len(simulated)
    figures.agree = cdc_lake == simulated and peer == simulated
    for side, rows in (("cdc-lake", cdc_lake), ("peer", peer)):
        missing, extra = sorted(simulated - rows), sorted(rows - simulated)
        verdict = "agree" if not missing and not extra else "DIFFER"
        line(f"check: {side}", f"{len(rows):,} live rows, {len(simulated):,} simulated: {verdict}")
        for row in missing[:3]:
            line("", f"missing {row}")
        for row in extra[:3]:
            line("", f"not in the database {row}")


def run_workload(name: str, options: argparse.Namespace, peer: Peer, workdir: Path) -> Figures:
    fmt, keys_kind = WORKLOADS[name]
    directory = workdir / name
    print(f"\n== workload {name}: {fmt}, {keys_kind} keys", flush=True)
    simulation = Simulation(fmt, keys_kind, options.keys, options.seed)
    messages = directory / "messages"
    batches = [simulation.write(messages, "full", options.messages, FILES)]
    increment = max(1, options.messages // 100)
    batches += [
        simulation.write(messages, f"more-{number:02d}", increment, 1)
        for number in range(1, options.runs + 1)
    ]
    total = sum(batch.messages for batch in batches)
    line("messages", f"{total:,} ({simulation.stream.describe()})")
    figures = Figures(name)
    figures.cdc_lake, lake_rows = cdc_lake_side(options, fmt, batches, directory / "cdc-lake")
    figures.peer, peer_rows = peer_side(options, peer, fmt, batches, directory / "peer")
    compare(figures, set(simulation.rows.values()), lake_rows, peer_rows)
    return figures


def summary(results: list[Figures], options: argparse.Namespace) -> None:
    what = f"load + dbt {options.dbt_command}" + (f" -s {options.select}" if options.select else "")
    print(f"\n== cdc-lake ({what}) against the peer (spark-pipelines run, AUTO CDC into Iceberg)")
    print(f"{'workload':<18} {'step':<13} {'cdc-lake':>10} {'peer':>10} {'cdc-lake / peer':>16}")
    for figures in results:
        for step in STEPS:
            lake, peer = figures.cdc_lake[step], figures.peer[step]
            print(
                f"{figures.name:<18} {step:<13} {lake:>8.1f} s {peer:>8.1f} s {lake / peer:>16.2f}"
            )
        verdict = "agree" if figures.agree else "DIFFER"
        print(f"{'':<18} current states: {figures.rows:,} live rows, both {verdict}")
    print(f"(1% and nothing new: medians of {options.runs} runs)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000, help="the full build's")
    parser.add_argument("--keys", type=int, default=100_000, help="key space of random")
    parser.add_argument("--runs", type=int, default=3, help="1%% and nothing-new runs each")
    parser.add_argument("--seed", type=int, default=10, help="seed of the simulated streams")
    parser.add_argument(
        "--workload", action="append", choices=sorted(WORKLOADS), help="repeatable; default all"
    )
    parser.add_argument("--dbt-command", choices=("build", "run"), default="build")
    parser.add_argument("--select", default=None, help="cdc-lake's dbt selection (all)")
    parser.add_argument("--workdir", type=Path, default=None, help="kept; default: temporary")
    options = parser.parse_args(argv)

    peer = prepare_peer()
    workdir = options.workdir or Path(tempfile.mkdtemp(prefix="cdc-lake-peers-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        results = [
            run_workload(name, options, peer, workdir)
            for name in options.workload or list(WORKLOADS)
        ]
    finally:
        if options.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    summary(results, options)
    if not all(figures.agree for figures in results):
        raise SystemExit("the current states differ (above)")


if __name__ == "__main__":
    main()
