"""`cdc-lake follow` against the session's Kafka broker and server: it lands what is produced
and builds the models; a failed build is reported and run again; a run stopped (SIGTERM)
mid-build, another killed (SIGKILL) mid-build, then a last start leave every message landed
once and the current state right.

The module runs in a landing schema and model schemas of its own (`CDC_LAKE_RAW_SCHEMA`,
`CDC_LAKE_SCHEMA`), one database name and topic per test; its builds select the Canal staging
model and the models the current state (and sync progress) need, Canal alone, without data
tests: a cycle's build takes under a minute.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.kafka_broker import Broker, Message
from support.pipeline import query, scalar
from support.project import PROJECT_ROOT

from cdc_lake import server
from cdc_lake.client import ClientError
from cdc_lake.follow import CYCLE_LINE

RAW_SCHEMA = "follow_raw"
MODEL_SCHEMA = "follow_marts"
LANDING = f"{RAW_SCHEMA}.canal_json"
LEDGER = f"{RAW_SCHEMA}.kafka_offsets"
STAGING = f"{MODEL_SCHEMA}_staging.stg_canal__json"
# The models without their data tests (other modules run those).
DBT = {
    "select": "stg_canal__json +cdc_current_state +cdc_sync_progress",
    "args": [
        *("--vars", "{cdc_lake_formats: [canal_json]}"),
        *("--exclude-resource-type", "test", "--exclude-resource-type", "unit_test"),
    ],
}
# The stopped and killed runs build the current state alone (with its history).
STATE_ONLY = DBT | {"select": "stg_canal__json +cdc_current_state"}
RUN_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def follow_env(
    spark_server: server.ServerConfig, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """The module's schemas and dbt target (one, so its builds share dbt's parse); a folder
    for the config files."""
    folder = tmp_path_factory.mktemp("follow")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", RAW_SCHEMA)
        patch.setenv("CDC_LAKE_SCHEMA", MODEL_SCHEMA)
        patch.setenv("DBT_TARGET_PATH", str(folder / "target"))
        yield folder


def write_config(folder: Path, broker: Broker, topic: str, dbt: dict = DBT) -> Path:
    path = folder / f"{topic}.yml"
    config = {
        "kafka": {"bootstrap": broker.bootstrap},
        "topics": [{"format": "canal_json", "topics": [topic]}],
        "dbt": dbt,
        "interval": 0.5,
    }
    path.write_text(yaml.safe_dump(config))
    return path


def follow_command(config: Path, port: int, *extra: str) -> list[str]:
    return [
        sys.executable, "-m", "cdc_lake.cli", "follow",
        "--config", str(config), "--port", str(port), *extra,
    ]  # fmt: skip


def canal(database: str, op: str, row: dict, old: dict | None = None) -> Message:
    """A Canal JSON message of one row of `<database>.items`, sent now, keyed by its id."""
    now = int(time.time() * 1000)
    value = {
        "data": [row],
        "database": database,
        "es": now,
        "id": 1,
        "isDdl": False,
        "mysqlType": {"id": "INTEGER", "name": "VARCHAR(64)"},
        "old": None if old is None else [old],
        "pkNames": ["id"],
        "sql": "",
        "sqlType": {"id": 4, "name": 12},
        "table": "items",
        "ts": now,
        "type": op,
    }
    return Message(json.dumps(value).encode(), key=row["id"].encode())


def inserts(database: str, ids: range) -> list[Message]:
    return [canal(database, "INSERT", {"id": str(i), "name": f"item {i}"}) for i in ids]


def cycle_lines(output: str) -> list[dict[str, Any]]:
    """The cycle lines of follow's output as CYCLE_LINE's fields; every line must be one,
    or the stop line."""
    cycles = []
    for line in output.splitlines():
        if line.startswith("stopped ("):
            continue
        match = CYCLE_LINE.fullmatch(line)
        assert match, f"not a cycle line: {line!r}"
        cycles.append(match.groupdict())
    return cycles


def live_rows(cursor: Any, database: str) -> dict[str, str]:
    rows = query(
        cursor,
        f"select row_data['id'] as id, row_data['name'] as name "
        f"from {MODEL_SCHEMA}.cdc_current_state "
        f"where table_key = '{database}.items' and not is_deleted",
    )
    return {row["id"]: row["name"] for row in rows}


def count(cursor: Any, table: str, topic: str) -> int:
    """The table's rows of the topic (0 while the table does not exist)."""
    try:
        return int(scalar(cursor, f"select count(*) from {table} where kafka_topic = '{topic}'"))
    except ClientError:
        return 0


def wait_for(condition: Callable[[], bool], process: subprocess.Popen) -> None:
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while not condition():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "follow did not get there in time"
        time.sleep(0.2)


def test_follow_lands_and_builds(
    follow_env: Path, kafka_broker: Broker, spark_server: server.ServerConfig, cursor: Any
) -> None:
    topic, database = "follow-lands", "follow_lands"
    kafka_broker.create_topic(topic, partitions=2)
    kafka_broker.produce(topic, inserts(database, range(1, 11)))
    done = subprocess.run(
        follow_command(write_config(follow_env, kafka_broker, topic), spark_server.port,
                       "--cycles", "2", "--interval", "0"),
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    first, second = cycle_lines(done.stdout)
    assert (first["landed"], first["formats"], first["behind"]) == ("10", "canal_json 10", "0")
    assert first["dbt"] == "ok", first["errors"]
    # The messages were sent now: the marts are as fresh as the build.
    assert 0 <= float(first["freshness"]) < RUN_TIMEOUT_S
    assert (second["landed"], second["formats"], second["behind"]) == ("0", None, "0")
    assert (second["dbt"], second["dbt_seconds"]) == ("skipped", None)
    assert live_rows(cursor, database) == {str(i): f"item {i}" for i in range(1, 11)}


def test_a_failed_build_is_reported_and_run_again(
    follow_env: Path, kafka_broker: Broker, spark_server: server.ServerConfig
) -> None:
    """A build that fails (here: a target the profile lacks) is on the line with dbt's error,
    and runs again next cycle though nothing new arrived; the loop goes on."""
    topic = "follow-fails"
    kafka_broker.create_topic(topic)
    config = write_config(follow_env, kafka_broker, topic, {"args": ["--target", "nosuch"]})
    done = subprocess.run(
        follow_command(config, spark_server.port, "--cycles", "2", "--interval", "0"),
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cycles = cycle_lines(done.stdout)
    assert [(c["landed"], c["behind"], c["dbt"]) for c in cycles] == [("0", "0", "failed")] * 2
    for cycle in cycles:
        assert cycle["errors"].startswith("dbt: Runtime Error: "), cycle["errors"]
        assert "does not have a target named 'nosuch'" in cycle["errors"]


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (dbt, under follow)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def wait_gone(pids: list[int], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while any(Path(f"/proc/{pid}").exists() for pid in pids):
        assert time.monotonic() < deadline, f"processes {pids} still running"
        time.sleep(0.2)


def start_and_signal(
    config: Path, port: int, cursor: Any, topic: str, staged: int, stop_signal: signal.Signals
) -> tuple[subprocess.Popen, str, str, list[int]]:
    """Start follow, signal it mid-build (its load committed, staging past `staged` rows of
    the topic, the marts still being built); the ended process, its stdout and stderr, and
    dbt's pids."""
    follow = subprocess.Popen(
        follow_command(config, port),
        cwd=PROJECT_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        wait_for(lambda: count(cursor, STAGING, topic) > staged, follow)
        dbt = children(follow.pid)
        follow.send_signal(stop_signal)
        out, err = follow.communicate(timeout=RUN_TIMEOUT_S)
    finally:
        if follow.poll() is None:
            follow.kill()
            follow.wait()
    return follow, out, err, dbt


def test_follow_stopped_then_killed_mid_build_resumes_exactly_once(
    follow_env: Path, kafka_broker: Broker, spark_server: server.ServerConfig, cursor: Any
) -> None:
    topic, database = "follow-stopped", "follow_stopped"
    kafka_broker.create_topic(topic, partitions=2)
    config = write_config(follow_env, kafka_broker, topic, STATE_ONLY)
    produced = kafka_broker.produce(topic, inserts(database, range(1, 31)))
    follow, out, err, _ = start_and_signal(
        config, spark_server.port, cursor, topic, 0, signal.SIGTERM
    )
    assert follow.returncode == 0, err
    cycles = cycle_lines(out)  # the first, unless it had ended before the signal
    assert out.splitlines()[-1] == f"stopped (SIGTERM) after cycle {len(cycles)}", out
    assert (cycles[0]["landed"], cycles[0]["dbt"]) == ("30", "ok"), cycles[0]["errors"]
    # Updates of 1-10: killed mid-build.
    produced += kafka_broker.produce(
        topic,
        [canal(database, "UPDATE", {"id": str(i), "name": f"new {i}"}, {"name": f"item {i}"})
         for i in range(1, 11)],
    )  # fmt: skip
    follow, out, err, dbt = start_and_signal(
        config, spark_server.port, cursor, topic, 30, signal.SIGKILL
    )
    assert follow.returncode == -signal.SIGKILL, (out, err)
    # dbt ends with follow, not racing the next start's build. It first cancels its statements
    # on the server, which took over a minute while the other test session loaded the cores.
    wait_gone(dbt, 180)
    # Deletes of 11-15, inserts of 31-40 while it is not running; then a start that ends.
    produced += kafka_broker.produce(
        topic,
        [
            *(canal(database, "DELETE", {"id": str(i), "name": f"item {i}"})
              for i in range(11, 16)),
            *inserts(database, range(31, 41)),
        ],
    )  # fmt: skip
    done = subprocess.run(
        follow_command(config, spark_server.port, "--cycles", "1"),
        cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=RUN_TIMEOUT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (restart,) = cycle_lines(done.stdout)
    assert (restart["behind"], restart["dbt"]) == ("0", "ok"), restart["errors"]
    assert produced == 55
    assert count(cursor, LANDING, topic) == produced
    offsets = query(
        cursor,
        f"select count(distinct kafka_partition, kafka_offset) as distinct_offsets "
        f"from {LANDING} where kafka_topic = '{topic}'",
    )
    assert offsets == [{"distinct_offsets": produced}]
    ledger = query(
        cursor,
        f"select `partition`, start_offset, end_offset, messages from {LEDGER} "
        f"where topic = '{topic}' and committed_at is not null "
        "order by `partition`, start_offset",
    )
    assert sum(row["messages"] for row in ledger) == produced
    for partition in {row["partition"] for row in ledger}:
        ranges = [
            (r["start_offset"], r["end_offset"]) for r in ledger if r["partition"] == partition
        ]
        assert ranges[0][0] == 0 and all(a[1] == b[0] for a, b in pairwise(ranges)), ranges
    expected = {str(i): f"new {i}" for i in range(1, 11)}
    expected |= {str(i): f"item {i}" for i in range(16, 41)}
    assert live_rows(cursor, database) == expected
