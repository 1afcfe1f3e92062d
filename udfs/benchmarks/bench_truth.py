"""Soak: real MariaDB and PostgreSQL change at a set rate for `--minutes` while Debezium
captures them (a Kafka Connect worker, four connectors: support/truth_capture.py) and
`cdc-lake follow` lands the topics and builds the marts; at every `--every` seconds the
workload pauses, a marker is written in each database, and once the marts show all four
markers (follow's cycles have caught up) the live rows of every table are compared with the
databases, value by value (support/truth_compare.py). Each comparison prints the changes made
so far, the rows compared, the mismatches and the lag: from the marker's write to the end of
the cycle that made it visible. The run ends with the typed models compared too.

    .venv/bin/python udfs/benchmarks/bench_truth.py --minutes 30 --rate 20

`--rate` is changes per second per database (the workload's steps: transactions of one to a
few rows, key changes, DDL now and then). The figures: udfs/benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import yaml
from bench_load import benchmark_server, free_port, line

PROJECT_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(PROJECT_ROOT / "udfs" / "tests"))
from support.kafka_broker import start_broker  # noqa: E402
from support.pipeline import compiled_inline, query, run_dbt  # noqa: E402
from support.truth_capture import (  # noqa: E402
    CONNECTORS,
    FORMAT,
    KINDS,
    TOPICS,
    Capture,
    compare_rows,
    compare_typed,
    running_capture,
)

from cdc_lake import server  # noqa: E402
from cdc_lake.client import connect  # noqa: E402
from cdc_lake.follow import CYCLE_LINE  # noqa: E402

RAW_SCHEMA, MODEL_SCHEMA = "soak_raw", "soak"
DBT = {
    "command": "run",
    "select": "stg_debezium__json +cdc_current_rows +cdc_table_schemas",
    "args": ["--vars", f"{{cdc_lake_formats: [{FORMAT}]}}"],
}


class Lake:
    """The benchmark's server, read over Thrift; follow's cycles counted as they end."""

    def __init__(self, config: server.ServerConfig) -> None:
        self.config = config
        self.cycles: list[float] = []

    def query(self, statement: str) -> list[dict[str, Any]]:
        with connect(self.config.host, self.config.port) as cursor:
            return query(cursor, statement)

    def shows(self, token: str) -> bool:
        """Whether every connector's marker row holds `token` in the marts."""
        try:
            rows = self.query(
                f"select count(*) as n from {MODEL_SCHEMA}.cdc_current_rows"
                f" where table_name = 'marker' and row_data['token'] = '{token}'"
            )
        except Exception:  # the marts do not exist before the first build
            return False
        return rows[0]["n"] == len(CONNECTORS)


def read_cycles(follow: subprocess.Popen, lake: Lake) -> None:
    assert follow.stdout is not None
    for text in follow.stdout:
        match = CYCLE_LINE.search(text)
        if match:
            lake.cycles.append(time.monotonic())
            if match["errors"]:
                print(f"  follow: {text.rstrip()}", flush=True)
        else:
            print(f"  follow: {text.rstrip()}", flush=True)


def run_workload(capture: Capture, seconds: float, rate: float) -> int:
    """Both databases' workloads at `rate` changes/s each for `seconds`, side by side."""
    made: dict[str, int] = {}

    def one(kind: str) -> None:
        connection = capture.connection(kind)
        try:
            made[kind] = capture.workloads[kind].run_for(connection, seconds, rate)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(kind,)) for kind in KINDS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(made.values())


def soak(options: argparse.Namespace, workdir: Path) -> int:
    broker = start_broker(workdir / "kafka")
    conf = {"spark.ui.enabled": "false"}
    try:
        with (
            running_capture(workdir / "capture", broker, options.seed) as capture,
            benchmark_server(workdir / "home", free_port(), conf, kafka=True) as config,
        ):
            return follow_and_compare(options, workdir, capture, Lake(config))
    finally:
        broker.stop()


def follow_and_compare(
    options: argparse.Namespace, workdir: Path, capture: Capture, lake: Lake
) -> int:
    env = os.environ | {
        "CDC_LAKE_PORT": str(lake.config.port),
        "CDC_LAKE_RAW_SCHEMA": RAW_SCHEMA,
        "CDC_LAKE_SCHEMA": MODEL_SCHEMA,
        "DBT_TARGET_PATH": str(workdir / "target"),
        "DBT_LOG_PATH": str(workdir / "logs"),
    }
    config = {
        "kafka": {"bootstrap": capture.broker.bootstrap},
        "topics": [{"format": FORMAT, "pattern": TOPICS}],
        "dbt": DBT,
    }
    (workdir / "follow.yml").write_text(yaml.safe_dump(config))
    # This process compiles the typed models, and seeds what `dbt run` does not.
    os.environ.update(env)
    run_dbt("seed", "--quiet", *DBT["args"])
    follow = subprocess.Popen(
        [str(Path(sys.executable).parent / "cdc-lake"), "follow", "--config",
         str(workdir / "follow.yml"), "--interval", str(options.interval),
         "--port", str(lake.config.port)],
        cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    threading.Thread(target=read_cycles, args=(follow, lake), daemon=True).start()
    changes, rows_compared, mismatches, lags = 0, 0, 0, []
    started = time.monotonic()
    try:
        while time.monotonic() - started < options.minutes * 60:
            left = options.minutes * 60 - (time.monotonic() - started)
            changes += run_workload(capture, min(options.every, max(left, 1)), options.rate)
            token = capture.write_markers()
            written = time.monotonic()
            while not lake.shows(token):
                if time.monotonic() - written > options.catch_up:
                    raise SystemExit(f"the marts did not show the marker in {options.catch_up} s")
                time.sleep(1)
            lag = time.monotonic() - written
            lags.append(lag)
            compared, problems = compare_rows(capture, lake.query, MODEL_SCHEMA)
            rows_compared += compared
            mismatches += len(problems)
            for problem in problems[:20]:
                print(f"  mismatch: {problem}", flush=True)
            minute = (time.monotonic() - started) / 60
            line(
                f"minute {minute:5.1f}",
                f"{changes:>8,} changes  {compared:>6,} rows compared"
                f"  {len(problems):>3} mismatches  lag {lag:6.1f} s  ({len(lake.cycles)} cycles)",
            )
    finally:
        follow.send_signal(signal.SIGTERM)
        follow.wait()
    typed_compared, typed_problems = compare_typed(
        capture, lake.query, MODEL_SCHEMA, lambda keys: compile_typed(keys, workdir / "typed")
    )
    for problem in typed_problems[:20]:
        print(f"  typed mismatch: {problem}", flush=True)
    tables = len(lake.query(f"select distinct table_key from {MODEL_SCHEMA}.cdc_current_rows"))
    line(
        "changes", f"{changes:,} in {options.minutes} min ({changes / options.minutes / 60:.1f}/s)"
    )
    line("tables with live rows", f"{tables} (two captures of each database table)")
    line("comparisons", f"{len(lags)}: {rows_compared:,} rows, {mismatches} mismatches")
    line("typed at the end", f"{typed_compared:,} rows, {len(typed_problems)} mismatches")
    if lags:
        line("lag (marker to visible)",
             f"median {statistics.median(lags):.1f} s, max {max(lags):.1f} s")  # fmt: skip
    return 1 if mismatches or typed_problems else 0


def compile_typed(table_keys: dict[str, str], target: Path) -> dict[str, str]:
    """Each table's typed model, compiled by one `dbt compile --inline`."""
    separator = "-- next typed model"
    names = sorted(table_keys)
    sql = f"\n{separator}\n".join(
        f"{{{{ cdc_typed_current_state('{table_keys[name]}') }}}}" for name in names
    )
    return dict(zip(names, compiled_inline(sql, target).split(separator), strict=True))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--rate", type=float, default=20, help="changes/s per database")
    parser.add_argument("--every", type=float, default=120, help="seconds between comparisons")
    parser.add_argument("--interval", type=float, default=5, help="follow's wait between cycles")
    parser.add_argument("--catch-up", type=float, default=600, help="seconds to await a marker")
    parser.add_argument("--seed", type=int, default=20261207)
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-truth-") as workdir:
        sys.exit(soak(options, Path(workdir)))


if __name__ == "__main__":
    main()
