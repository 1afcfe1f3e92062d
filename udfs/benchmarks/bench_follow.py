"""Freshness under a steady stream: how long a change takes from Kafka to `cdc_current_state`.

A producer writes the simulated Canal stream of bench_pipeline.py (random keys over a few
tables, 60/30/10 inserts, updates, deletes) and a Debezium one (a share of the rate, one
table) at `--rate` messages/s to a local Kafka broker (the tests' KRaft node, support/
kafka_broker.py) for `--minutes`, while `cdc-lake follow` runs against a server of its own:
each cycle loads what is new and runs dbt on the models `cdc_current_state` needs. Each
message's source time (Canal `es`, Debezium `source.ts_ms`) is the wall clock when it was
produced, so the freshness `follow` prints after a cycle (now minus the newest source time
in `cdc_sync_progress`) says up to when the marts are complete: a message produced at t is
visible from the end of the first cycle whose newest source time reaches t. The first
`--warmup` minutes (the cold server's first build, and catching up after it) are produced and
printed but left out of the figures. From the others, the lag of every message (produce time
to visible): p50, p95, max; each minute's, the consumer
lag (`behind`, in messages) and the cycle times; and the drift: the p95 of the last third of
the run against the first third's. `--check` compares the live rows with the simulated
databases at the end. `--search R1,R2,...` runs each rate for `--minutes` on a fresh broker
and server and reports the highest whose p95 stays under `--target` seconds without drift.

    .venv/bin/python udfs/benchmarks/bench_follow.py --rate 5000 --minutes 15 --check
    .venv/bin/python udfs/benchmarks/bench_follow.py --search 2000,5000,8000 --minutes 4

The figures and what they settled: udfs/benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import bisect
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from bench_load import benchmark_server, free_port, line
from bench_pipeline import MESSAGE_TEMPLATE, ROW_TEMPLATE, RandomStream

PROJECT_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(PROJECT_ROOT / "udfs" / "tests"))
from support.kafka_broker import start_broker  # noqa: E402

from cdc_lake import server  # noqa: E402
from cdc_lake.client import connect, run  # noqa: E402
from cdc_lake.follow import CYCLE_LINE  # noqa: E402

CANAL_TOPIC, DEBEZIUM_TOPIC = "bench.canal", "bench.debezium"
PARTITIONS = 3
TICK_S = 0.01  # the producer sends a tick's share of the rate every 10 ms
CANAL_TABLES = 5
DEBEZIUM_CONNECTOR = "benchdbz"


class DebeziumStream:
    """A simulated MySQL table `shop.items` and the Debezium messages of its changes: keys
    at random, 60/30/10 inserts, updates, deletes; the binlog position grows per message."""

    def __init__(self, keys: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.keys = keys
        self.rows: dict[int, int] = {}  # key -> version
        self.position = 4

    @property
    def live_keys(self) -> int:
        return len(self.rows)

    def message(self, ts_ms: int) -> tuple[bytes, bytes]:
        """(key, value) of the next change, its source time `ts_ms`."""
        key = self.rng.randrange(self.keys)
        kind = self.rng.choices(("c", "u", "d"), (0.6, 0.3, 0.1))[0]
        if key not in self.rows:
            kind = "c"
        elif kind == "c":
            kind = "u"
        before = None if kind == "c" else {"id": key, "version": self.rows[key]}
        if kind == "d":
            del self.rows[key]
            after = None
        else:
            self.rows[key] = self.rows.get(key, -1) + 1
            after = {"id": key, "version": self.rows[key]}
        self.position += 137
        value = {
            "before": before,
            "after": after,
            "source": {
                "version": "2.7.0.Final", "connector": "mysql", "name": DEBEZIUM_CONNECTOR,
                "ts_ms": ts_ms, "snapshot": "false", "db": "shop", "table": "items",
                "server_id": 1, "file": "mysql-bin.000001", "pos": self.position, "row": 0,
            },
            "op": kind,
            "ts_ms": ts_ms,
        }  # fmt: skip
        return json.dumps({"id": key}).encode(), json.dumps(value).encode()


@dataclass
class Producer:
    """Produces both streams at a steady rate on a thread, and counts what it sent by the
    100 ms slot of its source time."""

    bootstrap: str
    rate: float
    debezium_share: float
    keys: int
    canal: RandomStream = field(init=False)
    debezium: DebeziumStream = field(init=False)
    sent: Counter[int] = field(default_factory=Counter)  # 100 ms slot -> messages
    stop: threading.Event = field(default_factory=threading.Event)
    messages: int = 0
    last_ms: int = 0

    def __post_init__(self) -> None:
        self.canal = RandomStream(CANAL_TABLES, self.keys, seed=1)
        self.debezium = DebeziumStream(max(1, self.keys // CANAL_TABLES), seed=2)

    def canal_message(self, now_ms: int) -> tuple[bytes, bytes]:
        """The Canal stream's next change at `now_ms` (es and ts), its batch id unique, so
        (es, ts, id) orders every change of a key whatever the clock's resolution."""
        table, kind, rows = self.canal.change(now_ms)
        data = ",".join(ROW_TEMPLATE % values for values, _ in rows)
        old = "null"
        if kind == "UPDATE":
            old = "[" + ",".join(json.dumps(b, separators=(",", ":")) for _, b in rows) + "]"
        self.canal.messages += 1
        self.canal.row_changes[kind] += len(rows)
        name = f"table_{table:03d}"
        text = MESSAGE_TEMPLATE % (data, now_ms, self.canal.messages, old, name, now_ms, kind)
        return f"bench.{name}".encode(), text.encode()

    def run(self) -> None:
        from confluent_kafka import Producer as KafkaProducer

        producer = KafkaProducer(
            {"bootstrap.servers": self.bootstrap, "linger.ms": 20, "compression.type": "lz4"}
        )
        started = time.monotonic()
        credit = 0.0
        while not self.stop.is_set():
            credit = self.rate * (time.monotonic() - started) - self.messages
            now_ms = int(time.time() * 1000)
            for _ in range(int(credit)):
                if random.random() < self.debezium_share:
                    topic, (key, value) = DEBEZIUM_TOPIC, self.debezium.message(now_ms)
                else:
                    topic, (key, value) = CANAL_TOPIC, self.canal_message(now_ms)
                while True:
                    try:
                        producer.produce(topic, value=value, key=key)
                        break
                    except BufferError:
                        producer.poll(0.05)
                self.messages += 1
                self.sent[now_ms // 100] += 1
            self.last_ms = now_ms
            producer.poll(0)
            time.sleep(TICK_S)
        producer.flush(60)


@dataclass
class Visible:
    """One finished cycle: when it ended, and up to which source time the marts were complete."""

    at_ms: int
    through_ms: int
    behind: int | None
    seconds: float
    dbt: str


def lags(sent: Counter[int], cycles: list[Visible]) -> list[tuple[float, int, int]]:
    """(lag in seconds, messages, when visible in ms) per 100 ms slot produced: from the slot
    to the end of the first cycle that made it visible; slots no cycle made visible are left
    out."""
    made_visible = sorted(cycles, key=lambda c: c.at_ms)
    # A cycle's `through` never goes back in a correct run; keep the running maximum so one
    # cycle that saw less (a failed build) cannot claim earlier slots.
    through, highest = [], -1
    for cycle in made_visible:
        highest = max(highest, cycle.through_ms)
        through.append(highest)
    result = []
    for slot, count in sorted(dict(sent).items()):  # a copy: the producer adds slots
        produced_ms = slot * 100 + 50
        index = bisect.bisect_left(through, slot * 100 + 99)
        if index < len(made_visible):
            at_ms = made_visible[index].at_ms
            result.append(((at_ms - produced_ms) / 1000, count, at_ms))
    return result


def percentile(weighted: list[tuple[float, int, int]], share: float) -> float:
    """The weighted percentile of (value, weight, ...) tuples."""
    ordered = sorted(weighted)
    total = sum(weight for _, weight, *_ in ordered)
    running = 0
    for value, weight, *_ in ordered:
        running += weight
        if running >= share * total:
            return value
    return ordered[-1][0] if ordered else float("nan")


def summary_of(weighted: list[tuple[float, int, int]]) -> str:
    if not weighted:
        return "none made visible"
    return (
        f"p50 {percentile(weighted, 0.5):6.1f} s  p95 {percentile(weighted, 0.95):6.1f} s  "
        f"max {max(value for value, *_ in weighted):6.1f} s"
    )


def follow_config(path: Path, bootstrap: str) -> None:
    config = {
        "kafka": {"bootstrap": bootstrap},
        "topics": [
            {"format": "canal_json", "topics": [CANAL_TOPIC]},
            {"format": "debezium_json", "topics": [DEBEZIUM_TOPIC]},
        ],
        "dbt": {
            "command": "run",
            "select": "+cdc_current_state +cdc_sync_progress",
            "args": ["--vars", "{cdc_lake_formats: [canal_json, debezium_json]}"],
        },
    }
    path.write_text(yaml.safe_dump(config))


@dataclass
class Outcome:
    rate: float
    p95: float
    drift: float
    bounded: bool


def one_run(options: argparse.Namespace, rate: float, workdir: Path) -> Outcome:
    """A fresh broker and server, the producer at `rate` for the run, `follow` meanwhile."""
    line("rate", f"{rate:,.0f} messages/s: {options.warmup} min warm-up, {options.minutes} min")
    broker = start_broker(workdir / "kafka")
    try:
        for topic in (CANAL_TOPIC, DEBEZIUM_TOPIC):
            broker.create_topic(topic, partitions=PARTITIONS)
        conf = {"spark.ui.enabled": "false"}
        with benchmark_server(workdir / "home", free_port(), conf, kafka=True) as config:
            return follow_run(options, rate, workdir, broker.bootstrap, config)
    finally:
        broker.stop()


def follow_run(
    options: argparse.Namespace,
    rate: float,
    workdir: Path,
    bootstrap: str,
    config: server.ServerConfig,
) -> Outcome:
    env = os.environ | {"CDC_LAKE_PORT": str(config.port), "DBT_LOG_PATH": str(workdir / "logs")}
    env["DBT_TARGET_PATH"] = str(workdir / "target")
    subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), "seed", "--profiles-dir", "profiles",
         "--quiet", "--vars", "{cdc_lake_formats: [canal_json, debezium_json]}"],
        cwd=PROJECT_ROOT, env=env, check=True,
    )  # fmt: skip
    follow_config(workdir / "follow.yml", bootstrap)
    follow = subprocess.Popen(
        [str(Path(sys.executable).parent / "cdc-lake"), "follow", "--config",
         str(workdir / "follow.yml"), "--interval", str(options.interval),
         "--port", str(config.port)],
        cwd=PROJECT_ROOT, env=env, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    producer = Producer(bootstrap, rate, options.debezium_share, options.keys)
    cycles: list[Visible] = []
    reader = threading.Thread(target=read_cycles, args=(follow, cycles), daemon=True)
    reader.start()
    produce = threading.Thread(target=producer.run, daemon=True)
    started = time.time()
    produce.start()
    minute = 0
    try:
        while time.time() - started < (options.warmup + options.minutes) * 60:
            time.sleep(1)
            if time.time() - started >= (minute + 1) * 60:
                minute += 1
                report_minute(minute, started, producer, cycles)
        producer.stop.set()
        produce.join()
        per_second = producer.messages / (time.time() - started)
        line("produced", f"{producer.messages:,} messages ({per_second:,.0f}/s)")
        # The marts catch up with the last message, or the run is over anyway.
        deadline = time.time() + options.catch_up
        while time.time() < deadline and not (
            cycles and cycles[-1].through_ms >= producer.last_ms and cycles[-1].behind == 0
        ):
            time.sleep(1)
    finally:
        follow.send_signal(signal.SIGTERM)
        follow.wait()
    measured_from = int((started + options.warmup * 60) * 10)
    return conclude(options, rate, producer, cycles, config, measured_from)


def read_cycles(follow: subprocess.Popen, cycles: list[Visible]) -> None:
    assert follow.stdout is not None
    for text in follow.stdout:
        match = CYCLE_LINE.search(text)
        if not match:
            print(f"  follow: {text.rstrip()}", flush=True)
            continue
        now_ms = int(time.time() * 1000)
        fresh = match["freshness"]
        if fresh is not None and match["dbt"] in ("ok", "skipped"):
            behind = None if match["behind"] == "?" else int(match["behind"])
            cycles.append(
                Visible(now_ms, now_ms - int(float(fresh) * 1000), behind,
                        float(match["seconds"]), match["dbt"])
            )  # fmt: skip
        if match["errors"]:
            print(f"  follow: {text.rstrip()}", flush=True)


def report_minute(minute: int, started: float, producer: Producer, cycles: list[Visible]) -> None:
    """The messages the cycles that ended in this minute made visible: their lags; the most
    any of those cycles left behind, and their times."""
    begin_ms, end_ms = (started + (minute - 1) * 60) * 1000, (started + minute * 60) * 1000
    window = [c for c in cycles if begin_ms <= c.at_ms < end_ms]
    visible = [lag for lag in lags(producer.sent, cycles) if begin_ms <= lag[2] < end_ms]
    behind = [c.behind for c in window if c.behind is not None]
    line(
        f"minute {minute}",
        f"{summary_of(visible)}  behind {max(behind, default=0):,}  "
        f"cycles {', '.join(f'{c.seconds:.0f}' for c in window) or '-'} s",
    )


def conclude(
    options: argparse.Namespace,
    rate: float,
    producer: Producer,
    cycles: list[Visible],
    config: server.ServerConfig,
    measured_from: int,
) -> Outcome:
    """The figures of the slots produced after the warm-up; `--check` at the end."""
    measured = Counter({s: n for s, n in producer.sent.items() if s >= measured_from})
    everything = lags(measured, cycles)
    line("lag, produce to visible", summary_of(everything))
    slots = sorted(measured)
    third = len(slots) // 3
    first = lags(Counter({s: measured[s] for s in slots[:third]}), cycles)
    last = lags(Counter({s: measured[s] for s in slots[-third:]}), cycles)
    p95_first, p95_last = percentile(first, 0.95), percentile(last, 0.95)
    drift = (p95_last - p95_first) / max(1e-9, options.minutes * 2 / 3)
    line("p95 first / last third", f"{p95_first:.1f} s / {p95_last:.1f} s ({drift:+.2f} s/min)")
    seconds = [c.seconds for c in cycles if c.at_ms >= measured_from * 100]
    if seconds:
        line("cycle time", f"median {statistics.median(seconds):.1f} s, max {max(seconds):.1f} s")
    unseen = sum(measured.values()) - sum(count for _, count, _ in everything)
    line("not visible at the end", f"{unseen:,} messages")
    p95 = percentile(everything, 0.95) if everything else float("inf")
    bounded = unseen == 0 and p95 < options.target and p95_last <= 1.25 * p95_first + 10
    line("bounded", f"{'yes' if bounded else 'no'} (p95 under {options.target:.0f} s, no drift)")
    if options.check:
        check(config, producer)
    return Outcome(rate, p95, drift, bounded)


def check(config: server.ServerConfig, producer: Producer) -> None:
    with connect(config.host, config.port) as cursor:
        rows = dict(
            run(
                cursor,
                "select case when table_key like '%shop.items' then 'debezium' else 'canal' end,"
                " count(*) from cdc_lake.cdc_current_state where not is_deleted group by 1",
            )
        )
    expected = {"canal": producer.canal.live_keys, "debezium": producer.debezium.live_keys}
    for name, count in expected.items():
        got = rows.get(name, 0)
        line(
            f"check {name}",
            f"{got:,} live rows, {count:,} expected: {'ok' if got == count else 'MISMATCH'}",
        )
        if got != count:
            raise SystemExit(1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=5000.0, help="messages/s (5000)")
    parser.add_argument("--minutes", type=float, default=15.0, help="measured (15)")
    parser.add_argument("--warmup", type=float, default=2.0, help="minutes before them (2)")
    parser.add_argument("--search", help="rates to try in turn, e.g. 2000,5000,8000")
    parser.add_argument("--debezium-share", type=float, default=0.2, help="of the rate (0.2)")
    parser.add_argument("--keys", type=int, default=200_000, help="Canal key space (200000)")
    parser.add_argument("--interval", type=float, default=0.0, help="follow's wait (0 s)")
    parser.add_argument("--target", type=float, default=120.0, help="p95 bound (120 s)")
    parser.add_argument("--catch-up", type=float, default=600.0, help="seconds, at the end")
    parser.add_argument("--check", action="store_true", help="live rows = simulated database")
    parser.add_argument("--workdir", type=Path, help="kept; default a temporary folder")
    options = parser.parse_args(argv)
    rates = [float(r) for r in options.search.split(",")] if options.search else [options.rate]
    best = None
    for rate in rates:
        with tempfile.TemporaryDirectory(dir=options.workdir) as workdir:
            outcome = one_run(options, rate, Path(workdir))
        if not outcome.bounded:
            break
        best = outcome
    if options.search:
        line("highest bounded rate", "none" if best is None else f"{best.rate:,.0f} messages/s")


if __name__ == "__main__":
    main()
