"""What an incremental `dbt run` costs against a full refresh, measured in one run.

The claim of the incremental models: a run after a small load reads only the new landing
rows (staging, change log) and rebuilds only the (table_key, key_bucket) partitions the new
changes touched (history, current state), so its time follows the size of the load, not of
the history. This script starts its own server (temporary home, free port), loads a history
of DataWorks INSERT messages spread over several source tables, builds it, then loads a small
batch that touches one table and times, on the same data:

  (b) the incremental run after the small load;
  (c) a run with nothing new;
  (d) a `--full-refresh` run over everything (the baseline: what a table-materialized
      pipeline does on every run).

    .venv/bin/python udfs/benchmarks/bench_incremental.py --messages 200000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
from pathlib import Path

from bench_load import benchmark_server, dataworks_insert, free_port, line, timed

from cdc_lake.client import connect, run
from cdc_lake.loader import load_files

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FORMAT = "dataworks_json"
SELECTION = ["--select", "+cdc_current_state"]


def write_messages(path: Path, start: int, count: int, tables: int) -> None:
    """DataWorks INSERTs of keys start.., message i going to table i % tables."""
    with path.open("w", encoding="utf-8") as handle:
        for index in range(start, start + count):
            message = json.loads(dataworks_insert(index))
            message["schema"]["source"]["tableName"] = f"table_{index % tables:03d}"
            handle.write(json.dumps(message) + "\n")


def dbt(*args: str) -> None:
    from dbt.cli.main import dbtRunner

    project = ["--project-dir", str(PROJECT_ROOT), "--profiles-dir", str(PROJECT_ROOT / "profiles")]
    result = dbtRunner().invoke([*args, *project])
    if not result.success:
        raise SystemExit(f"dbt {args[0]} failed: {result.exception or result.result}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200_000, help="messages in the history")
    parser.add_argument("--batch", type=int, default=500, help="messages in the small load")
    parser.add_argument("--tables", type=int, default=20, help="source tables in the history")
    parser.add_argument("--workdir", type=Path, default=None, help="kept; default: temporary")
    args = parser.parse_args(argv)

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="cdc-lake-bench-incremental-"))
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    os.environ.update(
        {
            "CDC_LAKE_PORT": str(port),
            "DBT_TARGET_PATH": str(workdir / "target"),
            "DBT_LOG_PATH": str(workdir / "logs"),
        }
    )
    try:
        history, batch = workdir / "history.jsonl", workdir / "batch.jsonl"
        write_messages(history, 0, args.messages, args.tables)
        # The small load: new keys of one table only (every `tables`-th index).
        with batch.open("w", encoding="utf-8") as handle:
            for index in range(args.batch):
                key = args.messages + index * args.tables
                message = json.loads(dataworks_insert(key))
                message["schema"]["source"]["tableName"] = "table_000"
                handle.write(json.dumps(message) + "\n")
        line("history", f"{args.messages:,} messages over {args.tables} tables")
        line("small load", f"{args.batch:,} messages, one table")

        with benchmark_server(workdir / "home", port), connect(port=port) as cursor:
            dbt("seed")
            load_files(cursor, FORMAT, [history])
            _, seconds = timed(lambda: dbt("run", *SELECTION))
            line("(a) first run over the history", f"{seconds:9.1f} s")

            load_files(cursor, FORMAT, [batch])
            _, incremental = timed(lambda: dbt("run", *SELECTION))
            line("(b) incremental run, small load", f"{incremental:9.1f} s")
            _, idle = timed(lambda: dbt("run", *SELECTION))
            line("(c) run with nothing new", f"{idle:9.1f} s")
            _, full = timed(lambda: dbt("run", *SELECTION, "--full-refresh"))
            line("(d) full refresh, same data", f"{full:9.1f} s")
            line("(d) / (b)", f"{full / incremental:9.1f} x")
            rows = run(cursor, "select count(*) from cdc_lake.cdc_current_state")[0][0]
            expected = args.messages + args.batch
            if rows != expected:
                raise SystemExit(f"cdc_current_state has {rows} rows, expected {expected}")
            line("current state rows", f"{rows:,} (as expected)")
    finally:
        if args.workdir is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
