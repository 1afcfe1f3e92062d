"""Throughput of `cdc-lake load` against pushing rows through Thrift, measured in one run.

The loader's claim is that one `insert ... select from text.<file>` per file loads at Spark's
scan speed, while a client that sends `insert ... values` batches is bound by one Spark job per
batch. This script starts its own server (temporary home, free port), writes a file of
DataWorks-style INSERT messages, and prints both rates, their ratio, the time of a repeated
(skipped) load and the time of a bare scan of the file as an upper bound.

    .venv/bin/python udfs/benchmarks/bench_load.py --messages 200000
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, TypeVar

# The tests' port picker: below the ephemeral range, where no outgoing connection takes a
# port between its choice and the server's bind (benchmarks start servers the same way).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.project import free_port

from cdc_lake import server
from cdc_lake.client import connect, run
from cdc_lake.formats import landing_table
from cdc_lake.loader import inspect_file, load_files, spark_path, sql_string

FORMAT = "dataworks_json"
T = TypeVar("T")

JOBS = ("engineer", "analyst", "designer", "manager", "operator", "accountant", "support")


def dataworks_insert(index: int) -> str:
    """One compact DataWorks INSERT message shaped as the vendor doc's example (~570 bytes)."""
    event_ms = 1620457896000 + index * 37
    message = {
        "schema": {
            "dataColumn": [
                {"name": "name", "type": "STRING"},
                {"name": "job", "type": "STRING"},
                {"name": "sex", "type": "STRING"},
                {"name": "#alibaba_rds_row_id#", "type": "LONG"},
            ],
            "primaryKey": None,
            "source": {"dbType": "MySQL", "dbName": "pkset_test", "tableName": "pkset_test_no_pk"},
        },
        "payload": {
            "before": None,
            "after": {
                "dataColumn": {
                    "name": f"name{index}",
                    "job": JOBS[index % len(JOBS)] + str(index % 1000),
                    "sex": "man" if index % 2 else "woman",
                    "#alibaba_rds_row_id#": index,
                }
            },
            "sequenceId": str(1620457642589000000 + index),
            "timestamp": {
                "eventTime": event_ms,
                "systemTime": event_ms + 977,
                "checkpointTime": event_ms,
            },
            "op": "INSERT",
            "ddl": None,
        },
        "version": "0.0.1",
    }
    return json.dumps(message, separators=(",", ":"))


def write_messages(path: Path, count: int, start: int = 0) -> int:
    """Write `count` messages as JSON Lines; returns the file size in bytes."""
    with path.open("w", encoding="utf-8") as handle:
        for index in range(start, start + count):
            handle.write(dataworks_insert(index))
            handle.write("\n")
    return path.stat().st_size


def timed(action: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = action()
    return result, time.perf_counter() - started


@contextmanager
def benchmark_server(
    home: Path, port: int, conf: dict[str, str] | None = None, kafka: bool = False
) -> Iterator[server.ServerConfig]:
    """A server of the benchmark's own; `kafka`: with Spark's Kafka source (make setup)."""
    settings = {"spark.ui.enabled": "false", **(conf or {})}
    jars = server.bundled_jars(Path(__file__).resolve().parents[2]) if kafka else ()
    config = server.ServerConfig(home=home, port=port, conf=settings, jars=jars)
    pid, seconds = timed(lambda: server.start_background(config))
    line("server start", f"{seconds:.1f} s (pid {pid}, port {port}, home {home})")
    try:
        yield config
    finally:
        _, seconds = timed(lambda: server.stop(config))
        line("server stop", f"{seconds:.1f} s")


def push_rows(cursor: Any, messages: list[str], batch_rows: int, source: str) -> None:
    """What a naive loader does: `insert ... values` of `batch_rows` messages at a time."""
    loaded_at = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
    for first in range(0, len(messages), batch_rows):
        rows = ",\n".join(
            f"({sql_string(message)}, null, null, null, null, null, {sql_string(source)}, "
            f"{first + offset}, null, null, timestamp {sql_string(loaded_at)})"
            for offset, message in enumerate(messages[first : first + batch_rows])
        )
        run(cursor, f"insert into {landing_table(FORMAT)} values\n{rows}")


def line(label: str, value: str) -> None:
    print(f"{label:<34} {value}", flush=True)


def rate(messages: int, seconds: float) -> str:
    return f"{seconds:9.2f} s  {messages / seconds:>12,.0f} messages/s"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=1_000_000, help="messages in the file")
    parser.add_argument(
        "--baseline-messages", type=int, default=2_000, help="messages pushed row by row"
    )
    parser.add_argument("--batch-rows", type=int, default=100, help="rows per baseline insert")
    parser.add_argument("--port", type=int, default=0, help="server port (0: a free one)")
    parser.add_argument("--workdir", type=Path, default=None, help="kept; default: temporary")
    args = parser.parse_args(argv)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="cdc-lake-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    try:
        data = workdir / "messages.jsonl"
        size, seconds = timed(lambda: write_messages(data, args.messages))
        line("file", f"{data} ({seconds:.1f} s to write)")
        line("(a) messages", f"{args.messages:,}")
        line("(a) bytes", f"{size:,} ({size / args.messages:.0f} per message)")
        # The loader reads the file once in the client (hash, envelope): timed apart here.
        _, hash_seconds = timed(lambda: inspect_file(data))

        port = args.port or free_port()
        with benchmark_server(workdir / "home", port), connect(port=port) as cursor:
            results, seconds = timed(lambda: load_files(cursor, FORMAT, [data]))
            loaded = results[0].messages
            if loaded != args.messages:
                raise SystemExit(f"loaded {loaded} messages, expected {args.messages}")
            line("(b) loader: load_files", rate(loaded, seconds))
            line("", f"{size / seconds / 1e6:9.1f} MB/s")
            line("    of which client hashing", f"{hash_seconds:9.2f} s")
            loader_rate = loaded / seconds

            sample = [dataworks_insert(i) for i in range(args.baseline_messages)]
            _, seconds = timed(lambda: push_rows(cursor, sample, args.batch_rows, "baseline"))
            line(
                f"(c) baseline: values x{args.batch_rows}",
                rate(len(sample), seconds) + f"  ({len(sample):,} messages)",
            )
            baseline_rate = len(sample) / seconds
            line("(d) loader / baseline", f"{loader_rate / baseline_rate:9.1f} x")

            results, seconds = timed(lambda: load_files(cursor, FORMAT, [data]))
            outcome = "skipped" if results[0].skipped else f"LOADED AGAIN ({results[0].messages})"
            line("(e) same file again", f"{seconds:9.2f} s  {outcome}")

            uri = spark_path(data)
            rows, seconds = timed(lambda: run(cursor, f"select count(*) from text.`{uri}`"))
            line("scan only: count(*) from text.", rate(rows[0][0], seconds) + "  (upper bound)")
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
