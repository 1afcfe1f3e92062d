"""What a whole pipeline run costs against the history it reads.

The claims to check: a full build costs a small multiple of the bare Spark job that parses the
landing table once (the floor), an incremental run after a small load costs what is new, and
a run with nothing new costs a fixed few seconds. Each workload gets its own server (temporary
home, free port; one at a time) and, in that one run:

  canal workloads (random, time, tables): writes a seeded history of open-source Canal flat
  messages from a simulated MySQL database, loads it (`cdc-lake load`), runs the floor once
  to warm the server up (`create table ... as select` of the landing table parsed with
  `from_json` and exploded to one row per row-change; printed, not in the ratios: a
  server's first big statement pays the JVM's compilation of Spark's JSON and parquet
  paths, which a server that keeps running pays once), times `dbt seed` and a full build
  (`dbt run --full-refresh`) on a server that has not run the project's queries yet
  (printed, not in the ratios: its JVM compiles Spark's planner and the queries' generated
  code while it works, a cost a server that keeps running pays once, as the floor's warm-up
  is), then the full build and the floor five more times each, in turns (the ratios take the
  medians: one run of either is noisy, and in turns the two see the same minutes of the
  machine; each turn's own full / floor is printed too, as the spread the median is taken
  from), then `--warmups` + `--runs` times loads 1% more messages of the same stream and
  times an incremental `dbt run` (the first `--warmups` are printed, not in the ratios, for
  the same reason: the first plans and compiles every incremental query for the first time,
  and the JVM's compilers go on compiling the incremental paths for some five runs after a
  full build; the others are the run a deployment repeats, and the ratio takes their median,
  since one run alone is noisy; each prints the query classes the server compiled during
  it, from the driver's metrics), then a `dbt run` with nothing new, then two more 1% runs
  that each pay one compaction (the history's, the appended tables' rewrite; the measured
  runs never reach either, which a deployment pays every so many runs), then `dbt test` and
  a `dbt build` after 1% more (every data test reads all its model holds: printed, not in
  the targets, which time `dbt run`), and prints full/floor, incremental/full and the
  nothing-new seconds against the targets, a 1% run with the compactions' cost spread over
  the runs between them (at most; not a target), plus the files and partitions of the
  partitioned models;
  hot: one Huawei DRS DDS (MongoDB) document inserted, then updated by `$set`s of one field,
  and the full build that folds them: once for each of `--hot-updates` (20,000 and 100,000),
  a new server each, then how much longer the history base took for the most updates than
  for the fewest, against how much more they are (a fold linear in a key's versions grows
  by at most that; one that re-folds earlier versions at every version, by its square);
  documents: `--documents` such documents (100,000), each updated twice, the partial
  changes most keys have, and a full build on a warm server (what a change to the fold
  must not make slower for the sake of hot keys).

After every dbt invocation it prints the twelve slowest models and the CPU time the server
spent meanwhile (from /proc: its whole process group), with how many of the machine's cores
that kept busy on average: near all of them, a run is bound by the work Spark does, and only
less work makes it shorter; well under, something waits (planning on one thread, a stage of
one task, dbt between statements). It also prints the part of that CPU time the JVM's JIT
compiler threads took: on a young server a large share, which shrinks as the server ages.
`--check` compares the live rows of `cdc_current_state` with the simulated database and exits
1 on a mismatch. `--against CHECKOUT` measures a change against another commit's models on
one server: each 1% run of this checkout (warm-up runs too) is followed by one of CHECKOUT's
project (its own dbt target path), both after 1% more messages, and the two medians are
printed with their ratio. The sides share the tables (what one appends the other reads), and
in turns they see the same minutes of the machine, where two separate lines differ with its
load. The figures and what they settled: udfs/benchmarks/README.md.

    .venv/bin/python udfs/benchmarks/bench_pipeline.py --messages 1000000 --check
    .venv/bin/python udfs/benchmarks/bench_pipeline.py --workload hot --hot-updates 20000 100000

Workloads: `random` (5 tables, `--keys` keys picked at random: 60% inserts, 30% updates,
10% deletes while the key space allows), `time` (5 order tables: mostly inserts of
increasing keys, updates and a few deletes among the latest 1.5% of keys), `hot`,
`documents`, `tables` (`random` over `--tables` tables, default 500); `all` is the five. The
default is `random` and `time`, the two the targets are about.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import signal
import statistics
import sys
import tempfile
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import yaml
from bench_load import benchmark_server, free_port, line, timed

from cdc_lake import server
from cdc_lake.cli import conf_pair
from cdc_lake.client import connect, run
from cdc_lake.formats import FORMATS
from cdc_lake.loader import load_files

PROJECT_ROOT = Path(__file__).resolve().parents[2]
CANAL_WORKLOADS = ("random", "time", "tables")
WORKLOADS = (*CANAL_WORKLOADS, "hot", "documents")
DEFAULT_FORMATS = {"random": ["canal_json"], "time": ["canal_json"], "tables": ["canal_json"]}
DEFAULT_FORMATS["hot"] = DEFAULT_FORMATS["documents"] = ["drs_mongo"]
# The `$set`s of each document in `documents`: a key's partial changes as most keys have them.
DOCUMENT_UPDATES = 2
# The tables whose files the `tables` workload is about: the two halves of the history,
# whose file count must not grow with the number of source tables.
PARTITIONED_MODELS = (
    "cdc_lake_intermediate.int_cdc__row_history_base",
    "cdc_lake_intermediate.int_cdc__row_history_delta",
)
# The tables every load or run appends files to, which every later run's reads by `loaded_at`
# open (a footer each) to skip: their file counts grow with the runs, not the messages.
APPENDED_TABLES = (
    "cdc_raw.canal_json",
    "cdc_lake_staging.stg_canal__json",
    "cdc_lake_intermediate.int_cdc__row_versions",
    "cdc_lake_intermediate.int_cdc__message_accounting",
)
TARGETS = {"full / floor": 10.0, "incremental / full": 0.15, "nothing new (s)": 20.0}
# Times the full build and the floor run in turns after the first full build; the ratios
# take their medians. One run of either, and one turn's full / floor, moves enough to carry a
# line across its target, and the JVM still compiles in the first turns: five turns, not one
# or three, give a median nearer the warm server a deployment keeps.
MEASURED_BUILDS = 5

# ---------------------------------------------------------------- Canal flat messages

RANDOM_TABLES = 5
COLUMNS = ("id", "status", "amount", "updated_at")
MYSQL_TYPES = json.dumps(
    {
        "id": "bigint(20)",
        "status": "varchar(16)",
        "amount": "decimal(12,2)",
        "updated_at": "datetime",
    },
    separators=(",", ":"),
)
SQL_TYPES = json.dumps(dict(zip(COLUMNS, (-5, 12, 3, 93), strict=True)), separators=(",", ":"))
STATUSES = ("created", "paid", "packed", "shipped", "delivered", "returned")
# Values are plain text without quotes or backslashes, so %-formatting writes valid JSON,
# far faster than json.dumps, which matters at millions of messages.
ROW_TEMPLATE = "{" + ",".join(f'"{column}":"%s"' for column in COLUMNS) + "}"
MESSAGE_TEMPLATE = (
    '{"data":[%s],"database":"bench","es":%d,"id":%d,"isDdl":false,'
    f'"mysqlType":{MYSQL_TYPES},"old":%s,"pkNames":["id"],"sql":"",'
    f'"sqlType":{SQL_TYPES},"table":"%s","ts":%d,"type":"%s"}}'
)
FIRST_TS_MS = 1_704_067_200_000  # 2024-01-01 00:00:00 UTC
TS_STEP_MS = 7  # ts grows by this per message: ~140 messages per second of binlog
MESSAGES_PER_BATCH = 8  # Canal's batch `id` is shared by the messages of one batch
# The floor's parse: the Canal fields the marts need, values as the text Canal sends.
FLOOR_SCHEMA = (
    "struct<data: array<map<string, string>>, database: string, table: string, "
    "type: string, es: bigint, ts: bigint>"
)

# A row's state in the simulated database: (version, es of its last change in ms). Its
# values are a function of (key, version, es), so the stream needs no stored rows.
RowState = tuple[int, int]
RowChange = tuple[tuple[str, ...], dict[str, str] | None]  # (data values, update's old)


@dataclass(frozen=True)
class Change:
    """One message's change: the `index`th of its stream, on `table`, 1 to 3 rows."""

    index: int
    table: str
    kind: str  # INSERT, UPDATE or DELETE
    rows: list[RowChange]
    es_ms: int
    ts_ms: int


def row_values(key: int, state: RowState) -> tuple[str, ...]:
    """The row of `key` at `state`. `status` and `amount` change with every version,
    `updated_at` only when the second changes, so updates' `old` lists two or three columns."""
    version, es_ms = state
    return (
        str(key),
        STATUSES[version % len(STATUSES)],
        f"{(key * 7919 + version * 104729) % 10_000_000 / 100:.2f}",
        time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(es_ms // 1000)),
    )


def changed_columns(before: tuple[str, ...], after: tuple[str, ...]) -> dict[str, str]:
    """Canal's `old[i]` of an update: the previous value of each column that changed."""
    return {
        column: old for column, old, new in zip(COLUMNS, before, after, strict=True) if old != new
    }


class KeyPool:
    """A set of keys with O(1) add, remove and random sample: a million messages each pick
    keys from it, so a plain set (no sampling) or list (O(n) removal) would not do."""

    def __init__(self, keys: Iterable[int] = ()) -> None:
        self.keys = list(keys)
        self.position = {key: index for index, key in enumerate(self.keys)}

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: int) -> None:
        self.position[key] = len(self.keys)
        self.keys.append(key)

    def remove(self, key: int) -> None:
        index = self.position.pop(key)
        last = self.keys.pop()
        if last != key:
            self.keys[index] = last
            self.position[last] = index

    def sample(self, rng: random.Random, count: int) -> list[int]:
        return rng.sample(self.keys, min(count, len(self.keys)))


def canal_message(change: Change) -> str:
    """The Canal flat message of `change`."""
    data = ",".join(ROW_TEMPLATE % values for values, _ in change.rows)
    old = "null"
    if change.kind == "UPDATE":
        old = ",".join(json.dumps(before, separators=(",", ":")) for _, before in change.rows)
        old = f"[{old}]"
    batch_id = 1 + change.index // MESSAGES_PER_BATCH
    values = (data, change.es_ms, batch_id, old, change.table, change.ts_ms, change.kind)
    return MESSAGE_TEMPLATE % values


class CanalStream(ABC):
    """A simulated MySQL database and the Canal flat messages of its changes, in binlog
    order: `es`/`ts` grow with the message index, so the order the pipeline must rebuild is
    the order of generation, and the generator knows what the current state must be."""

    def __init__(self, tables: int, seed: int) -> None:
        self.tables = tables
        self.rng = random.Random(seed)
        self.messages = 0
        self.row_changes: Counter[str] = Counter()

    @property
    @abstractmethod
    def live_keys(self) -> int:
        """Rows the simulated database holds now."""

    @abstractmethod
    def change(self, es_ms: int) -> tuple[int, str, list[RowChange]]:
        """The next change: (table, Canal type, 1 to 3 rows), applied to the database."""

    def next_change(self) -> Change:
        """The next message's change, applied to the database: what `message` writes."""
        ts_ms = FIRST_TS_MS + self.messages * TS_STEP_MS
        es_ms = (ts_ms - 250) // 1000 * 1000  # the binlog's whole second, a bit before ts
        table, kind, rows = self.change(es_ms)
        self.messages += 1
        self.row_changes[kind] += len(rows)
        return Change(self.messages - 1, f"table_{table:03d}", kind, rows, es_ms, ts_ms)

    def message(self) -> str:
        return canal_message(self.next_change())

    def write(self, directory: Path, count: int, files: int) -> int:
        """The next `count` messages as up to `files` JSON Lines files; returns their bytes."""
        directory.mkdir(parents=True, exist_ok=True)
        files = max(1, min(files, count))
        size = 0
        for part in range(files):
            path = directory / f"part-{part:03d}.jsonl"
            share = count // files + (part < count % files)
            with path.open("w", encoding="utf-8") as handle:
                handle.writelines(self.message() + "\n" for _ in range(share))
            size += path.stat().st_size
        return size

    def describe(self) -> str:
        total = sum(self.row_changes.values())
        mix = ", ".join(
            f"{self.row_changes[kind] / total:.0%} {kind.lower()}"
            for kind in ("INSERT", "UPDATE", "DELETE")
        )
        return f"{total:,} row changes ({mix}), {self.live_keys:,} live keys"


class RandomStream(CanalStream):
    """Keys picked at random from a fixed key space: every partition of the history is
    touched all the time, the hard case for a run that should rewrite only what changed.
    60/30/10 insert/update/delete; an insert takes a key not alive (new or deleted), so once
    the key space is full an insert becomes an update (the printed mix says how often)."""

    WEIGHTS = (("INSERT", 0.6), ("UPDATE", 0.3), ("DELETE", 0.1))

    def __init__(self, tables: int, keys: int, seed: int) -> None:
        super().__init__(tables, seed)
        per_table = max(1, keys // tables)
        self.free = [KeyPool(range(per_table)) for _ in range(tables)]
        self.live = [KeyPool() for _ in range(tables)]
        self.state: list[dict[int, RowState]] = [{} for _ in range(tables)]

    @property
    def live_keys(self) -> int:
        return sum(len(pool) for pool in self.live)

    def change(self, es_ms: int) -> tuple[int, str, list[RowChange]]:
        table = self.rng.randrange(self.tables)
        kind = self.rng.choices([k for k, _ in self.WEIGHTS], [w for _, w in self.WEIGHTS])[0]
        if kind == "INSERT" and not self.free[table]:
            kind = "UPDATE"
        if kind != "INSERT" and not self.live[table]:
            kind = "INSERT"
        free, live, state = self.free[table], self.live[table], self.state[table]
        rows: list[RowChange] = []
        source, target = (free, live) if kind == "INSERT" else (live, free)
        for key in source.sample(self.rng, self.rng.randint(1, 3)):
            before = state.get(key)
            if kind == "DELETE":
                assert before is not None
                rows.append((row_values(key, before), None))
            else:
                after = (before[0] + 1 if before else 0, es_ms)
                state[key] = after
                values = row_values(key, after)
                old = changed_columns(row_values(key, before), values) if kind == "UPDATE" else None
                rows.append((values, old))
            if kind != "UPDATE":
                source.remove(key)
                target.add(key)
        return table, kind, rows


class TimeStream(CanalStream):
    """Order tables: new orders get increasing ids and later changes hit recent orders, so
    what is new is concentrated in time, as in most OLTP tables."""

    WEIGHTS = (("INSERT", 0.70), ("UPDATE", 0.28), ("DELETE", 0.02))
    RECENT_SHARE = 0.015  # updates and deletes pick among the latest 1.5% of a table's keys
    MIN_RECENT = 100

    def __init__(self, tables: int, seed: int) -> None:
        super().__init__(tables, seed)
        self.next_key = [1] * tables
        self.forgotten = [1] * tables  # keys below it are out of the window for good
        # The live keys of each table's recent window; older live keys are only counted.
        self.recent: list[dict[int, RowState]] = [{} for _ in range(tables)]
        self.live = 0

    @property
    def live_keys(self) -> int:
        return self.live

    def change(self, es_ms: int) -> tuple[int, str, list[RowChange]]:
        table = self.rng.randrange(self.tables)
        kind = self.rng.choices([k for k, _ in self.WEIGHTS], [w for _, w in self.WEIGHTS])[0]
        count = self.rng.randint(1, 3)
        recent, next_key = self.recent[table], self.next_key[table]
        window = max(self.MIN_RECENT, int(next_key * self.RECENT_SHARE))
        first_recent = max(1, next_key - window)
        while self.forgotten[table] < first_recent:
            recent.pop(self.forgotten[table], None)
            self.forgotten[table] += 1
        keys: list[int] = []
        if kind != "INSERT" and recent:
            picked = {self.rng.randrange(first_recent, next_key) for _ in range(count)}
            keys = sorted(key for key in picked if key in recent)
        if not keys:  # an insert, or no live key where the update or delete fell
            kind = "INSERT"
            keys = list(range(next_key, next_key + count))
            self.next_key[table] += count
        rows: list[RowChange] = []
        for key in keys:
            if kind == "DELETE":
                rows.append((row_values(key, recent.pop(key)), None))
                self.live -= 1
                continue
            before = recent.get(key)
            after = (before[0] + 1 if before else 0, es_ms)
            recent[key] = after
            values = row_values(key, after)
            old = changed_columns(row_values(key, before), values) if before else None
            rows.append((values, old))
            self.live += kind == "INSERT"
        return table, kind, rows


# ---------------------------------------------------------------- Huawei DRS DDS (MongoDB)

DOCUMENT_FIELDS = 10


def document_fields(document: int, updates: int) -> dict[str, str]:
    """The fields of `document` after `updates` rounds of write_documents, as
    `cdc_current_state.row_data` shows them (a string unquoted)."""
    fields = dict.fromkeys((f"f{index}" for index in range(DOCUMENT_FIELDS)), "v0")
    for update in range(1, updates + 1):
        fields[f"f{(update + document) % DOCUMENT_FIELDS}"] = f"v{update}"
    return fields


def write_documents(path: Path, documents: int, updates: int) -> int:
    """`documents` documents inserted, then `updates` rounds of a `$set` of one field of each
    (in round r, document d sets field (r + d) % 10 to `vr`). One document and many rounds is
    the worst case for folding partial changes (`hot`: all on one key); many documents and a
    few rounds the usual one (`documents`). Returns the file's size."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for index in range(documents * (updates + 1)):
            update, document = divmod(index, documents)
            object_id = f'ObjectId("65a1b2c3d4e5{document:012x}")'
            if update == 0:
                kind, record = "INSERT", "insert"
                body = ", ".join(f'"{name}": "v0"' for name in document_fields(document, 0))
                value = f'{{"_id": {object_id}, "name": "d{document}", {body}}}'
            else:
                kind, record = "UPDATE", "update"
                name = f"f{(update + document) % DOCUMENT_FIELDS}"
                value = f'{{"$set": {{"{name}": "v{update}"}}}}'
            # 100 operations per second of the cluster's clock, the increment counting them.
            second, increment = divmod(index, 100)
            ts_ms = FIRST_TS_MS + index * 10
            message = {
                "id": 1 + index,
                "op": kind,
                "dbType": "MongoDB",
                "db": "bench",
                "coll": "documents",
                "value": value,
                "where": f'{{"_id": {object_id}}}' if update else None,
                "recordType": record,
                "extra": record,
                "es": ts_ms - 120,
                "ts": ts_ms,
                "clusterTime": f"{FIRST_TS_MS // 1000 + second}:{increment + 1}",
            }
            handle.write(json.dumps(message) + "\n")
    return path.stat().st_size


# ---------------------------------------------------------------- dbt and Spark


# The process group of the workload's server (`cdc-lake serve` makes one per server): what
# server_cpu_seconds sums. Set by run_workload while its server runs.
server_group: int | None = None


# HotSpot's JIT compiler threads ("C1 CompilerThread0", "C2 CompilerThread0"; Linux keeps the
# first 15 characters of a thread's name).
JIT_THREADS = ("C1 Compiler", "C2 Compiler")


def server_cpu_seconds() -> tuple[float, float] | None:
    """CPU seconds (user and system) the server's processes have used so far, and the part of
    it the JVM's JIT compiler threads used, from /proc; None where there is no /proc or no
    server. Spark's driver JVM holds its executors here (`local[*]`), so this is all the work
    a run made the server do; a young server's JVM still compiles Spark's code to machine code
    while it works, a share of a run that shrinks as the server ages."""
    if server_group is None or not Path("/proc/self/stat").exists():
        return None
    ticks = jit_ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        fields = proc_stat_fields(stat)
        if fields is None or int(fields[3]) != server_group:  # pgrp
            continue
        ticks += int(fields[12]) + int(fields[13])  # utime and stime
        for thread_stat in stat.parent.glob("task/[0-9]*/stat"):
            thread = proc_stat_fields(thread_stat)
            if thread is not None and thread[0].startswith(JIT_THREADS):
                jit_ticks += int(thread[12]) + int(thread[13])
    return ticks / os.sysconf("SC_CLK_TCK"), jit_ticks / os.sysconf("SC_CLK_TCK")


def proc_stat_fields(stat: Path) -> list[str] | None:
    """A /proc stat file's fields from the command name on (so list index = field number - 2),
    the name without its parentheses; None when the process or thread ended meanwhile."""
    try:
        text = stat.read_text()
    except OSError:
        return None
    # The name (field 2) may hold spaces and parentheses: it ends at the last ')'.
    name, rest = text[text.index("(") + 1 :].rsplit(")", 1)
    return [name, *rest.split()]


def dbt(
    label: str,
    formats: Sequence[str],
    *args: str,
    model_seconds: dict[str, float] | None = None,
    extra_vars: dict[str, Any] | None = None,
    against: tuple[Path, Path] | None = None,
) -> float:
    """Invoke dbt in-process (as a user's `dbt` would run it) with the formats var (and
    `extra_vars`); print its time, the server's CPU time meanwhile and its twelve slowest
    models, since the totals alone do not say where time goes. Each model's time goes into
    `model_seconds` if given. `against`: another checkout's project directory and a target
    path of its own (dbt's parse of one project would be thrown away by the other's run)."""
    from dbt.cli.main import dbtRunner

    project, target = against if against is not None else (PROJECT_ROOT, None)
    command = [
        *args,
        "--quiet",  # dbt's own log is in DBT_LOG_PATH; this output is the measurement
        "--vars",
        json.dumps({"cdc_lake_formats": list(formats), **(extra_vars or {})}),
        "--project-dir",
        str(project),
        "--profiles-dir",
        str(PROJECT_ROOT / "profiles"),
        *(["--target-path", str(target)] if target is not None else []),
    ]
    cpu_before = server_cpu_seconds()
    result, seconds = timed(lambda: dbtRunner().invoke(command))
    cpu_after = server_cpu_seconds()
    nodes = list(result.result or []) if result.exception is None else []
    failed = [node.node.name for node in nodes if node.status not in ("success", "pass")]
    if not result.success or failed:
        raise SystemExit(f"dbt {' '.join(args)} failed: {result.exception or failed}")
    line(label, f"{seconds:9.1f} s")
    if cpu_before is not None and cpu_after is not None:
        cpu, jit = (after - before for after, before in zip(cpu_after, cpu_before, strict=True))
        line(
            "",
            f"server CPU {cpu:.1f} s: {cpu / seconds:.2f} of {os.cpu_count()} cores busy;"
            f" its JIT compiler {jit:.1f} s",
        )
    summed = sum(node.execution_time for node in nodes)
    line("", f"{len(nodes)} nodes, {summed:.1f} s summed over dbt's threads; slowest:")
    for node in sorted(nodes, key=lambda node: -node.execution_time)[:12]:
        line("", f"{node.execution_time:9.1f} s  {node.node.name}")
    if model_seconds is not None:
        model_seconds.update((node.node.name, node.execution_time) for node in nodes)
    return seconds


def seconds_list(seconds: Sequence[float]) -> str:
    """Each run's seconds, as the bench lists the runs beside the median taken of them."""
    return ", ".join(f"{value:.1f}" for value in seconds)


def scalar(cursor: Any, statement: str) -> Any:
    return run(cursor, statement)[0][0]


def table_files(cursor: Any, table: str) -> tuple[list[Path], int]:
    """The data files of a table (from its metastore location) and how many partitions hold
    them: what a partitioned model costs the filesystem, which grows with the source tables."""
    rows = run(cursor, f"describe formatted {table}")
    locations = [value for name, value, _ in rows if (name or "").strip() == "Location"]
    if not locations:  # a view, say, after a model changed its materialization
        raise SystemExit(f"{table} has no location: not a table; its files cannot be counted")
    location = locations[0]
    files = [
        path
        for path in Path(urlparse(location).path).rglob("*")
        if path.is_file() and not path.name.startswith((".", "_"))
    ]
    return files, len({path.parent for path in files})


def print_files(cursor: Any, written_since: float | None = None) -> None:
    for table in PARTITIONED_MODELS + APPENDED_TABLES:
        files, partitions = table_files(cursor, table)
        size = sum(path.stat().st_size for path in files)
        value = f"{len(files):9,} files, {partitions:,} partitions, {size / 1e6:,.1f} MB"
        if written_since is not None:
            written = sum(path.stat().st_mtime >= written_since for path in files)
            value += f", {written:,} written by this run"
        line(f"  {table.split('.')[-1]}", value)


def floor(cursor: Any, rows: int, label: str) -> float:
    """The bare Spark job every build must at least do: parse each landed message once and
    write one row per row-change. The models do more (order, fold, history), but a full
    build far above this says where to look."""
    run(cursor, "create database if not exists bench_floor")
    run(cursor, "drop table if exists bench_floor.canal_rows")
    statement = f"""
        create table bench_floor.canal_rows using parquet as
        select
            message.database as database_name,
            message.table as table_name,
            message.type as source_op,
            message.es as es,
            message.ts as ts,
            explode(message.data) as row_data
        from (
            select from_json(value, '{FLOOR_SCHEMA}') as message
            from cdc_raw.canal_json
        ) as parsed"""
    _, seconds = timed(lambda: run(cursor, statement))
    written = scalar(cursor, "select count(*) from bench_floor.canal_rows")
    if written != rows:
        raise SystemExit(f"the floor wrote {written:,} rows, expected {rows:,}")
    line(label, f"{seconds:9.1f} s  ({written:,} rows)")
    return seconds


def load(cursor: Any, label: str, fmt: str, paths: list[Path], expected: int) -> float:
    results, seconds = timed(lambda: load_files(cursor, fmt, paths))
    loaded = sum(result.messages for result in results)
    if loaded != expected:
        raise SystemExit(f"loaded {loaded:,} messages, expected {expected:,}")
    line(label, f"{seconds:9.1f} s  ({len(results)} files, {loaded / seconds:,.0f} messages/s)")
    return seconds


def live_rows(cursor: Any) -> int:
    return scalar(cursor, "select count(*) from cdc_lake.cdc_current_state where not is_deleted")


# The driver's metrics written every second as CSV (Spark's CsvSink), of which the count of
# query classes Spark compiled: a class compiled anew each run is planning time and JIT work
# a server that keeps running does not pay for a query it has seen.
METRICS_CONF = {
    "spark.metrics.conf.driver.sink.csv.class": "org.apache.spark.metrics.sink.CsvSink",
    "spark.metrics.conf.driver.sink.csv.period": "1",
    "spark.metrics.conf.driver.sink.csv.unit": "seconds",
}


def compiled_classes(metrics: Path) -> int:
    """How many query classes the server has compiled so far (its CodeGenerator metric),
    after the sink's next write."""
    time.sleep(1.5)
    files = list(metrics.glob("*.driver.CodeGenerator.compilationTime.csv"))
    if not files:
        raise SystemExit(f"no CodeGenerator metrics in {metrics}: the server wrote none")
    last = files[0].read_text(encoding="utf-8").splitlines()[-1]
    return int(last.split(",")[1])


# ---------------------------------------------------------------- workloads


@dataclass
class Compaction:
    """A 1% run that also pays one of the compactions (its seconds), and how many 1% runs of
    this size go from one such compaction to the next (`every`)."""

    seconds: float
    every: int


@dataclass
class Figures:
    """One workload's times in seconds (None: not part of that workload)."""

    workload: str
    messages: int
    load: float
    full: float
    first_full: float | None = None
    floor: float | None = None
    first_incremental: float | None = None
    incremental: float | None = None
    idle: float | None = None
    compactions: list[Compaction] = field(default_factory=list)  # canal workloads
    tests: float | None = None  # `dbt test` after the runs
    incremental_build: float | None = None  # a `dbt build` after 1% more
    fold: float | None = None  # hot, documents: the history base's model in the full build
    check: str = "-"

    def ratios(self) -> dict[str, float]:
        if self.floor is None or self.incremental is None or self.idle is None:
            return {}
        return {
            "full / floor": self.full / self.floor,
            "incremental / full": self.incremental / self.full,
            "nothing new (s)": self.idle,
        }

    def amortized_incremental(self) -> float | None:
        """The median 1% run plus, for each compaction, what its run costs beyond a 1% run over
        the runs from one such compaction to the next: what a deployment's runs cost on
        average, at most (an appended table of over two million rows is rewritten less often
        than the bound counts)."""
        if not self.compactions or self.incremental is None:
            return None
        return self.incremental + sum(
            (compaction.seconds - self.incremental) / compaction.every
            for compaction in self.compactions
        )


@dataclass
class Options:
    messages: int
    keys: int
    tables: int
    hot_updates: int  # the one size a hot workload runs (main runs each of --hot-updates)
    documents: int
    files: int
    seed: int
    formats: list[str] | None
    check: bool
    warmups: int
    runs: int
    conf: dict[str, str]
    against: Path | None = None


def canal_workload(name: str, options: Options, directory: Path, cursor: Any) -> Figures:
    """One canal workload from history to incremental runs, on the server `cursor` reaches."""
    formats = options.formats or DEFAULT_FORMATS[name]
    if name == "time":
        stream: CanalStream = TimeStream(RANDOM_TABLES, options.seed)
    else:
        tables = options.tables if name == "tables" else RANDOM_TABLES
        stream = RandomStream(tables, options.keys, options.seed)
    size, seconds = timed(
        lambda: stream.write(directory / "history", options.messages, options.files)
    )
    line(
        "history",
        f"{options.messages:,} messages over {stream.tables} tables, {options.files} files",
    )
    line(
        "",
        f"{size / 1e6:,.1f} MB, {size / options.messages:.0f} bytes/message, "
        f"{seconds:.1f} s to write",
    )
    line("", stream.describe())
    history_rows = sum(stream.row_changes.values())
    figures = Figures(name, options.messages, 0.0, 0.0)
    figures.load = load(
        cursor, "(a) load the history", "canal_json", [directory / "history"], options.messages
    )
    floor(cursor, history_rows, "floor on a cold server (warm-up)")
    dbt("dbt seed", formats, "seed")
    figures.first_full = dbt("first full build (cold server)", formats, "run", "--full-refresh")
    fulls, floors = [], []
    for n in range(1, 1 + MEASURED_BUILDS):
        label = f"{n}/{MEASURED_BUILDS}"
        fulls.append(dbt(f"(b) full build {label}", formats, "run", "--full-refresh"))
        floors.append(floor(cursor, history_rows, f"(c) floor {label}"))
    print_files(cursor)
    figures.full, figures.floor = statistics.median(fulls), statistics.median(floors)
    line("(b) full build, median", f"{figures.full:9.1f} s of {seconds_list(fulls)}")
    line("(c) floor, median", f"{figures.floor:9.1f} s of {seconds_list(floors)}")
    turns = ", ".join(f"{full / floor:.2f}" for full, floor in zip(fulls, floors, strict=True))
    line("(b) / (c), each turn", turns)

    batch = max(1, options.messages // 100)

    def incremental_run(label: str, other: bool = False) -> float:
        """Load 1% more messages of the stream, then time a `dbt run` (of the `--against`
        checkout if `other`)."""
        load_next_batch(cursor, directory, stream, batch)
        started, compiled = time.time(), compiled_classes(directory / "metrics")
        against = (options.against, directory / "target-against") if other else None
        seconds = dbt(label, formats, "run", against=against)
        print_files(cursor, written_since=started)
        line("", f"{compiled_classes(directory / 'metrics') - compiled} query classes compiled")
        return seconds

    # With --against, every run of this checkout is followed by one of the other, warm-up
    # runs too: both sides' queries are compiled before the measured runs.
    sides = [False, True] if options.against is not None else [False]
    warmups = [
        incremental_run(f"warm-up incremental run {n}/{options.warmups}{side_label(other)}", other)
        for n in range(1, 1 + options.warmups)
        for other in sides
    ]
    figures.first_incremental = warmups[0] if warmups else None
    if warmups:
        line("warm-up runs", f"{seconds_list(warmups)} s (not in the ratios)")
    runs: list[float] = []
    other_runs: list[float] = []
    for n in range(1, 1 + options.runs):
        for other in sides:
            label = f"(e) incremental run {n}/{options.runs}{side_label(other)}"
            (other_runs if other else runs).append(incremental_run(label, other))
    figures.incremental = statistics.median(runs)
    if options.runs > 1:
        line("(e) median", f"{figures.incremental:9.1f} s of {seconds_list(runs)}")
    if other_runs:
        other_median = statistics.median(other_runs)
        line("(e) against, median", f"{other_median:9.1f} s of {seconds_list(other_runs)}")
        line("", f"this checkout / against: {figures.incremental / other_median:.3f}")
    started = time.time()
    figures.idle = dbt("(f) run with nothing new", formats, "run")
    print_files(cursor, written_since=started)
    figures.compactions = compaction_runs(cursor, directory, stream, batch, formats)
    figures.tests, figures.incremental_build = tests_and_build(
        cursor, directory, stream, batch, formats
    )
    for label, value in figures.ratios().items():
        verdict = "ok" if value <= TARGETS[label] else "OVER TARGET"
        line(label, f"{value:9.2f}    target <= {TARGETS[label]:g}: {verdict}")
    amortized = figures.amortized_incremental()
    if amortized is not None:
        line(
            "1% run with compactions",
            f"{amortized:9.1f} s at most, / full {amortized / figures.full:.3f} (not a target)",
        )
    line(
        "(j) 1% build / full",
        f"{figures.incremental_build / figures.full:9.2f}    (not a target: the targets time"
        f" `dbt run`; the 1% run alone {figures.incremental / figures.full:.3f})",
    )
    if options.check:
        figures.check = check(live_rows(cursor), stream.live_keys)
    return figures


def side_label(other: bool) -> str:
    """What a run's label says of the checkout it ran (`--against`)."""
    return ", against" if other else ""


def load_next_batch(cursor: Any, directory: Path, stream: CanalStream, batch: int) -> None:
    """Write the stream's next `batch` messages (1% of the history) and load them."""
    shutil.rmtree(directory / "batch", ignore_errors=True)
    stream.write(directory / "batch", batch, 1)
    line("small load", f"{batch:,} messages (1%), {stream.describe()}")
    load(cursor, "(d) load 1% more", "canal_json", [directory / "batch"], batch)


def compaction_runs(
    cursor: Any,
    directory: Path,
    stream: CanalStream,
    batch: int,
    formats: Sequence[str],
) -> list[Compaction]:
    """Time two more 1% runs, each paying one compaction that the runs above never reach at
    these sizes, and which a deployment pays every so many runs (the median hides them):
    the history's (var `cdc_lake_compaction_ratio: 0` makes it due: the base rebuilt from
    every version), every var cdc_lake_compaction_ratio of the base's rows over the versions
    a run loads; and the appended tables' rewrite (`cdc_lake_compaction_appends: 1`), at the
    soonest every var cdc_lake_compaction_appends runs (a table of over two million rows waits
    longer, macro appends_between_compactions: spread over that var's runs, its cost is an
    upper bound). The versions a run loads are read after both: the delta then holds only
    what the runs since the history's compaction loaded (one run's, the rewrites'), where
    counting from the full build would miscount after a compaction that came due during the
    measured runs."""
    project_vars = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text("utf-8"))["vars"]
    appends_every = project_vars["cdc_lake_compaction_appends"]
    seconds = []
    for label, extra_vars in (
        ("(g) 1% run + history compaction", {"cdc_lake_compaction_ratio": 0}),
        ("(h) 1% run + appended rewrites", {"cdc_lake_compaction_appends": 1}),
    ):
        load_next_batch(cursor, directory, stream, batch)
        seconds.append(dbt(label, formats, "run", extra_vars=extra_vars))
    base_rows, per_run = history_versions(cursor)
    history_every = math.ceil(project_vars["cdc_lake_compaction_ratio"] * base_rows / per_run)
    line("(g) every", f"{history_every} runs of {per_run:,.0f} versions (a base of {base_rows:,})")
    line(
        "(h) every",
        f"{appends_every} runs at the soonest (var cdc_lake_compaction_appends; a table of"
        " over two million rows waits longer, macro appends_between_compactions)",
    )
    return [Compaction(seconds[0], history_every), Compaction(seconds[1], appends_every)]


def tests_and_build(
    cursor: Any,
    directory: Path,
    stream: CanalStream,
    batch: int,
    formats: Sequence[str],
) -> tuple[float, float]:
    """Time `dbt test` over what the models hold, then a `dbt build` after 1% more messages
    (what a deployment runs after a load: the 1% run, then every data test). Not a target,
    the targets time `dbt run`; timed because a data test reads every row of its model, so
    the tests are most of a 1% build."""
    tests = dbt("(i) dbt test", formats, "test")
    load_next_batch(cursor, directory, stream, batch)
    build = dbt("(j) 1% build (dbt build)", formats, "build")
    return tests, build


def history_versions(cursor: Any) -> tuple[int, float]:
    """The history base's rows (its table property) and the versions a run loaded since it,
    on average: the delta's count since the base over its generations (each a run that
    loaded something; a compaction drops the ones it folded in)."""
    base = dict(run(cursor, "show tblproperties cdc_lake_intermediate.int_cdc__row_history_base"))
    delta = "cdc_lake_intermediate.int_cdc__row_history_delta"
    since_base = int(
        dict(run(cursor, f"show tblproperties {delta}"))["cdc_lake.versions_since_base"]
    )
    generations = {row[0].split("/")[0] for row in run(cursor, f"show partitions {delta}")}
    return int(base["cdc_lake.row_count"]), since_base / len(generations)


def documents_workload(
    name: str, documents: int, updates: int, options: Options, directory: Path, cursor: Any
) -> Figures:
    """Partial changes of MongoDB documents (write_documents) and the full build that folds
    them: `hot`, one build on a cold server, whose history base's time bench_pipeline
    compares between sizes; `documents`, a build on a cold server (printed) and the one
    measured."""
    formats = options.formats or DEFAULT_FORMATS[name]
    path = directory / "history" / "documents.jsonl"
    size = write_documents(path, documents, updates)
    messages = documents * (updates + 1)
    line(
        "history",
        f"{documents:,} documents, {updates:,} $set updates of each, {size / 1e6:,.1f} MB",
    )
    figures = Figures(name, messages, 0.0, 0.0)
    figures.load = load(cursor, "(a) load the history", "drs_mongo", [path], messages)
    dbt("dbt seed", formats, "seed")
    if name == "documents":
        figures.first_full = dbt("first full build (cold server)", formats, "run", "--full-refresh")
    model_seconds: dict[str, float] = {}
    figures.full = dbt(
        "(b) full build", formats, "run", "--full-refresh", model_seconds=model_seconds
    )
    figures.fold = model_seconds["int_cdc__row_history_base"]
    line("", f"{figures.full / messages * 1e3:9.2f} ms per message")
    if options.check:
        rows = run(
            cursor, "select to_json(row_data) from cdc_lake.cdc_current_state where not is_deleted"
        )
        folded = [json.loads(row) for [row] in rows]
        mismatches = sum(
            1
            for row in folded
            if {key: value for key, value in row.items() if key.startswith("f")}
            != document_fields(int(row["name"][1:]), updates)
        )
        figures.check = check(len(folded), documents)
        if mismatches:
            line("check: folded fields", f"{mismatches:,} documents differ: MISMATCH")
            figures.check = "MISMATCH"
    return figures


def check(actual: int, expected: int) -> str:
    verdict = "ok" if actual == expected else "MISMATCH"
    line("check: live rows", f"{actual:,} in cdc_current_state, {expected:,} simulated: {verdict}")
    return verdict


def run_workload(name: str, options: Options, workdir: Path) -> Figures:
    """A workload on its own server, so that no other data shares its tables or its cache.
    The Mongo workloads' directories are named by their size: `hot` runs several."""
    sizes = {"hot": options.hot_updates, "documents": options.documents}
    label = f"{name}-{sizes[name]}" if name in sizes else name
    directory = workdir / label
    port = free_port()
    os.environ.update(
        {
            "CDC_LAKE_PORT": str(port),
            "DBT_TARGET_PATH": str(directory / "target"),
            "DBT_LOG_PATH": str(directory / "logs"),
        }
    )
    print(f"\n== workload {label}", flush=True)
    metrics = directory / "metrics"
    metrics.mkdir(parents=True, exist_ok=True)
    conf = (
        METRICS_CONF | {"spark.metrics.conf.driver.sink.csv.directory": str(metrics)} | options.conf
    )
    global server_group
    with benchmark_server(directory / "home", port, conf) as config, connect(port=port) as cursor:
        server_group = server.read_pid(config)
        try:
            if name == "hot":
                return documents_workload("hot", 1, options.hot_updates, options, directory, cursor)
            if name == "documents":
                return documents_workload(
                    "documents", options.documents, DOCUMENT_UPDATES, options, directory, cursor
                )
            return canal_workload(name, options, directory, cursor)
        finally:
            server_group = None


def summary(results: list[Figures]) -> None:
    """One table of every workload, so runs at several --messages compare at a glance."""

    def cell(value: float | None, digits: int = 1) -> str:
        return "-" if value is None else f"{value:.{digits}f}"

    header = (
        "workload",
        "messages",
        "load s",
        "full1 s",
        "full s",
        "floor s",
        "incr1 s",
        "incr s",
        "idle s",
        "amort s",
        "test s",
        "build1% s",
        "full/floor",
        "incr/full",
        "amort/full",
        "check",
    )
    rows = [header]
    for figures in results:
        ratios, amortized = figures.ratios(), figures.amortized_incremental()
        rows.append(
            (
                figures.workload,
                f"{figures.messages:,}",
                *(
                    cell(seconds)
                    for seconds in (
                        figures.load,
                        figures.first_full,
                        figures.full,
                        figures.floor,
                        figures.first_incremental,
                        figures.incremental,
                        figures.idle,
                        amortized,
                        figures.tests,
                        figures.incremental_build,
                    )
                ),
                cell(ratios.get("full / floor"), 2),
                cell(ratios.get("incremental / full"), 3),
                cell(amortized / figures.full if amortized is not None else None, 3),
                figures.check,
            )
        )
    widths = [max(len(row[column]) for row in rows) for column in range(len(header))]
    print("\n== summary (targets: full/floor <= 10, incr/full <= 0.15, idle <= 20 s)")
    for row in rows:
        print("  ".join(text.rjust(width) for text, width in zip(row, widths, strict=True)))
    hot = [figures for figures in results if figures.workload == "hot"]
    if len(hot) > 1:
        small, large = min(hot, key=lambda f: f.messages), max(hot, key=lambda f: f.messages)
        grown = large.messages / small.messages
        print(
            f"hot key's fold (the history base's model, a cold server each): "
            f"{small.messages:,} -> {large.messages:,} messages (x{grown:.1f}), "
            f"{small.fold:.1f} -> {large.fold:.1f} s (x{large.fold / small.fold:.1f}; "
            f"linear in the versions: at most x{grown:.1f}, quadratic: x{grown**2:.0f})"
        )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--workload",
        nargs="+",
        choices=[*WORKLOADS, "all"],
        default=["random", "time"],
        help="workloads to run, each on its own server (default: random time)",
    )
    parser.add_argument("--messages", type=int, default=1_000_000, help="canal history size")
    parser.add_argument("--keys", type=int, default=100_000, help="key space of random/tables")
    parser.add_argument("--tables", type=int, default=500, help="source tables of `tables`")
    parser.add_argument(
        "--hot-updates",
        type=int,
        nargs="+",
        default=[20_000, 100_000],
        help="updates of `hot`, a server each: the fold's time must grow no faster than they",
    )
    parser.add_argument(
        "--documents",
        type=int,
        default=100_000,
        help=f"documents of `documents`, each inserted and updated {DOCUMENT_UPDATES} times",
    )
    parser.add_argument("--files", type=int, default=10, help="files the history is written as")
    parser.add_argument("--seed", type=int, default=10, help="seed of the simulated streams")
    parser.add_argument(
        "--formats",
        nargs="+",
        choices=sorted(FORMATS),
        default=None,
        help="var cdc_lake_formats (default: canal_json, or drs_mongo for hot)",
    )
    parser.add_argument(
        "--check", action="store_true", help="compare live rows with the simulated database"
    )
    parser.add_argument(
        "--warmups",
        type=int,
        default=5,
        help="incremental runs before the measured ones, printed, not in the ratios (the JVM "
        "still compiles the incremental paths)",
    )
    parser.add_argument(
        "--runs",
        type=int,
        default=3,
        help="incremental runs measured after the warm-up ones; the ratio takes their median",
    )
    parser.add_argument("--workdir", type=Path, default=None, help="kept; default: temporary")
    parser.add_argument(
        "--against",
        type=Path,
        default=None,
        metavar="CHECKOUT",
        help="another checkout of the project (e.g. `git worktree add` of main before a "
        "change): the 1%% runs alternate between this checkout and its models on the same "
        "server and tables, and their medians are compared (the full builds, the floor and "
        "the other runs are this checkout's; random, time and tables only)",
    )
    parser.add_argument(
        "--conf",
        type=conf_pair,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting of the benchmark's servers (as cdc-lake serve --conf), to "
        "measure a setting against the server's default",
    )
    args = parser.parse_args(argv)
    if args.against is not None and not (args.against / "dbt_project.yml").is_file():
        parser.error(f"--against {args.against}: no dbt_project.yml there (a project checkout)")
    names = list(WORKLOADS) if "all" in args.workload else list(dict.fromkeys(args.workload))
    if args.against is not None and not set(names) & set(CANAL_WORKLOADS):
        parser.error("--against compares 1% runs, which only random, time and tables make")
    options = Options(
        messages=args.messages,
        keys=args.keys,
        tables=args.tables,
        hot_updates=args.hot_updates[0],
        documents=args.documents,
        files=args.files,
        seed=args.seed,
        formats=args.formats,
        check=args.check,
        warmups=args.warmups,
        runs=args.runs,
        conf=dict(args.conf),
        against=args.against.resolve() if args.against is not None else None,
    )

    # A SIGTERM (a timeout, `kill`) must unwind like Ctrl-C so the server is stopped too.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="cdc-lake-bench-pipeline-"))
    workdir.mkdir(parents=True, exist_ok=True)
    sizes = {name: [options] for name in names}
    sizes["hot"] = [replace(options, hot_updates=n) for n in args.hot_updates]
    try:
        results = [run_workload(name, sized, workdir) for name in names for sized in sizes[name]]
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    summary(results)
    if any(figures.check == "MISMATCH" for figures in results):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
