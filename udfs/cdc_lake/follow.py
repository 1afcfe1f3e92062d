"""`cdc-lake follow`: the continuous mode, left running: land what is new, build, wait.

Each cycle lands every configured topic's new messages (`load_kafka`, exactly once through
the offset ledger), runs `dbt build` (or the config's selection) when anything arrived or the
last build failed, and prints one line (stable; the freshness benchmark parses it, `CYCLE_LINE`):

  cycle 7: landed 50 messages (canal_json 50), behind 0, freshness 4.2 s, dbt ok 8.8 s, cycle 9.9 s

- `landed`: messages landed in this cycle, then per format in the config's order (the
  parenthesis is left out when none landed);
- `behind`: over every followed partition, Kafka's read-committed end offset after the loads
  minus the ledger's next offset: what a next load would read (`?` when not known);
- `freshness`: now minus the newest `progress_at` (source commit time, or heartbeat) in
  `<schema>.cdc_sync_progress`, `CDC_LAKE_SCHEMA` or `cdc_lake` (`?` before it exists);
- `dbt ok|failed|stopped <seconds> s`, or `dbt skipped` (nothing new and the last build
  succeeded), or `dbt not run` (stopping);
- `cycle`: the cycle's wall time.

What went wrong follows after `; `: `load failed <format>[ (source S)]: <error>` per failed
load, `dbt: <first error line>`. A failed load is tried again next cycle; a failed build runs
again next cycle whether or not anything new arrived; neither ends the loop. dbt's full
output is in its own log (logs/dbt.log, or DBT_LOG_PATH).

SIGINT and SIGTERM let the current step (a load, or the build) finish, then the loop prints
`stopped (<signal>) after cycle N` and exits 0; a second signal during the build passes
SIGINT on to dbt, which cancels its queries. No state of its own: the ledger makes every
load exactly-once whatever is killed when, and the first cycle after a start always builds,
so messages a stopped or crashed run landed are never left unbuilt.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cdc_lake.client import ClientError, run
from cdc_lake.formats import FORMATS, check_source_name
from cdc_lake.kafka_loader import (
    KafkaOffsets,
    KafkaSource,
    client_config,
    held_offsets,
    jaas_config,
    load_kafka,
)

DEFAULT_INTERVAL_S = 60.0
DEFAULT_SCHEMA = "cdc_lake"
TOP_KEYS = ("kafka", "topics", "dbt", "interval")
KAFKA_KEYS = ("bootstrap", "options")
ENTRY_KEYS = ("format", "topics", "pattern", "source", "max_messages")
DBT_KEYS = ("command", "select", "args")
DBT_COMMANDS = ("build", "run")
CYCLE_LINE = re.compile(
    r"cycle (?P<number>\d+): landed (?P<landed>\d+) messages(?: \((?P<formats>[^)]*)\))?, "
    r"behind (?P<behind>\d+|\?), freshness (?:(?P<freshness>-?\d+\.\d) s|\?), "
    r"dbt (?P<dbt>ok|failed|stopped|skipped|not run)(?: (?P<dbt_seconds>\d+\.\d) s)?, "
    r"cycle (?P<seconds>\d+\.\d) s(?:; (?P<errors>.*))?$"
)
ANSI = re.compile(r"\x1b\[[0-9;]*m")
DBT_TIME_PREFIX = re.compile(r"^\d\d:\d\d:\d\d\s+")
DBT_SUMMARY_ERROR = re.compile(r"[\w ]*\b(Error|Failure) in \w")
DBT_ERROR = re.compile(r"\bERROR\b|Error:")


class FollowConfigError(ValueError):
    """A config file `follow` cannot run with: one line naming the file and the key."""


@dataclass(frozen=True)
class FollowEntry:
    """One `topics:` entry: a format's topics (named or a pattern), landed as one source."""

    fmt: str
    source: KafkaSource
    source_name: str | None = None
    max_messages: int | None = None

    def label(self) -> str:
        return self.fmt + ("" if self.source_name is None else f" (source {self.source_name})")


@dataclass(frozen=True)
class FollowConfig:
    """A validated config file (see profiles/follow.example.yml)."""

    entries: tuple[FollowEntry, ...]
    dbt_command: str = "build"
    dbt_select: str | None = None
    dbt_args: tuple[str, ...] = ()
    interval_s: float = DEFAULT_INTERVAL_S


@dataclass(frozen=True)
class Cycle:
    """What one cycle did: the figures of its line (None: not known)."""

    number: int
    landed: Mapping[str, int]  # per format, in the config's order
    behind: int | None
    freshness_s: float | None
    dbt: str  # ok, failed, stopped, skipped, not run
    dbt_s: float | None
    seconds: float
    errors: tuple[str, ...] = ()

    @property
    def messages(self) -> int:
        return sum(self.landed.values())

    def line(self) -> str:
        formats = ", ".join(f"{fmt} {count}" for fmt, count in self.landed.items() if count)
        parts = [
            f"cycle {self.number}: landed {self.messages} messages"
            + (f" ({formats})" if formats else ""),
            f"behind {'?' if self.behind is None else self.behind}",
            "freshness ?" if self.freshness_s is None else f"freshness {self.freshness_s:.1f} s",
            f"dbt {self.dbt}" + ("" if self.dbt_s is None else f" {self.dbt_s:.1f} s"),
            f"cycle {self.seconds:.1f} s",
        ]
        errors = "; ".join(" ".join(error.split()) for error in self.errors)
        return ", ".join(parts) + (f"; {errors}" if errors else "")


def load_config(path: Path) -> FollowConfig:
    """The config file, validated; a FollowConfigError naming the file and key otherwise."""
    import yaml

    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise FollowConfigError(f"{path}: cannot read it: {error.strerror}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        raise FollowConfigError(f"{path}: not YAML{where}: {error}".splitlines()[0]) from None
    try:
        return parse_config(document)
    except FollowConfigError as error:
        raise FollowConfigError(f"{path}: {error}") from None


def parse_config(document: Any) -> FollowConfig:
    """The config from its parsed YAML; errors say which key is wrong and why."""
    top = mapping(document, "the file", TOP_KEYS)
    kafka = mapping(top.get("kafka"), "kafka", KAFKA_KEYS)
    bootstrap = kafka.get("bootstrap")
    if not isinstance(bootstrap, str) or not bootstrap.strip():
        raise FollowConfigError("kafka.bootstrap: the brokers, host:port[,...], are required")
    options = mapping(kafka.get("options", {}), "kafka.options", None)
    for key, value in options.items():
        if not isinstance(value, (str, int, float, bool)):
            raise FollowConfigError(f"kafka.options.{key}: a value, not {type(value).__name__}")
    text_options = {
        str(key): str(value).lower() if isinstance(value, bool) else str(value)
        for key, value in options.items()
    }
    listed = top.get("topics")
    if not isinstance(listed, list) or not listed:
        raise FollowConfigError("topics: a list of entries (format, topics or pattern) needed")
    entries = [
        parse_entry(item, f"topics[{index}]", bootstrap.strip(), text_options)
        for index, item in enumerate(listed)
    ]
    seen: dict[tuple[str, str | None], int] = {}
    for index, entry in enumerate(entries):
        key = (entry.fmt, entry.source_name)
        if key in seen:
            raise FollowConfigError(
                f"topics[{index}]: same format and source as topics[{seen[key]}] "
                f"({entry.label()}); list their topics in one entry"
            )
        seen[key] = index
    dbt = mapping(top.get("dbt", {}), "dbt", DBT_KEYS)
    command = dbt.get("command", "build")
    if command not in DBT_COMMANDS:
        raise FollowConfigError("dbt.command: build (models and their data tests) or run")
    select = dbt.get("select")
    if select is not None and (not isinstance(select, str) or not select.strip()):
        raise FollowConfigError("dbt.select: a dbt selection, e.g. '+cdc_current_state'")
    args = dbt.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise FollowConfigError("dbt.args: a list of strings (more dbt arguments)")
    if "--select" in args or "-s" in args:
        raise FollowConfigError("dbt.args: name the selection in dbt.select")
    interval = top.get("interval", DEFAULT_INTERVAL_S)
    return FollowConfig(
        entries=tuple(entries),
        dbt_command=command,
        dbt_select=select.strip() if select else None,
        dbt_args=tuple(args),
        interval_s=check_interval(interval, "interval"),
    )


def parse_entry(item: Any, where: str, bootstrap: str, options: Mapping[str, str]) -> FollowEntry:
    entry = mapping(item, where, ENTRY_KEYS)
    fmt = entry.get("format")
    if fmt not in FORMATS:
        raise FollowConfigError(
            f"{where}.format: {fmt!r} is not a format; known: {', '.join(sorted(FORMATS))}"
        )
    topics = entry.get("topics")
    pattern = entry.get("pattern")
    if (topics is None) == (pattern is None):
        raise FollowConfigError(f"{where}: name its topics (topics: [...]) or a pattern, not both")
    if topics is not None and (
        not isinstance(topics, list)
        or not topics
        or not all(isinstance(t, str) and t.strip() for t in topics)
    ):
        raise FollowConfigError(f"{where}.topics: a list of topic names")
    if pattern is not None:
        if not isinstance(pattern, str) or not pattern:
            raise FollowConfigError(f"{where}.pattern: a regular expression")
        try:
            re.compile(pattern)
        except re.error as error:
            raise FollowConfigError(f"{where}.pattern: not a regular expression: {error}") from None
    source_name = entry.get("source")
    if source_name is not None:
        try:
            check_source_name(str(source_name))
        except ValueError as error:
            raise FollowConfigError(f"{where}.source: {error}") from None
    max_messages = entry.get("max_messages")
    if max_messages is not None and (
        not isinstance(max_messages, int) or isinstance(max_messages, bool) or max_messages < 1
    ):
        raise FollowConfigError(f"{where}.max_messages: a whole number of at least 1")
    try:
        source = KafkaSource(
            bootstrap=bootstrap,
            topics=tuple(t.strip() for t in topics or ()),
            pattern=pattern,
            options=options,
        )
    except ValueError as error:
        raise FollowConfigError(f"kafka.options: {error}") from None
    return FollowEntry(fmt, source, None if source_name is None else str(source_name), max_messages)


def mapping(value: Any, where: str, known: Sequence[str] | None) -> dict[str, Any]:
    """A YAML mapping with only `known` keys (any keys when None)."""
    if not isinstance(value, dict):
        raise FollowConfigError(f"{where}: a mapping of keys is required")
    if known is not None:
        unknown = sorted(str(key) for key in value if key not in known)
        if unknown:
            inside = "" if where == "the file" else f"{where}."
            raise FollowConfigError(f"{inside}{unknown[0]}: unknown key; known: {', '.join(known)}")
    return value


def check_interval(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise FollowConfigError(f"{where}: seconds between cycles, a number of at least 0")
    return float(value)


def model_schema(environ: Mapping[str, str] = os.environ) -> str:
    """The schema of the marts, as profiles/profiles.yml names it."""
    return environ.get("CDC_LAKE_SCHEMA") or DEFAULT_SCHEMA


def dbt_executable() -> str:
    """dbt of the interpreter's environment (the virtualenv cdc-lake is installed in)."""
    beside = Path(sys.executable).parent / "dbt"
    if beside.exists():
        return str(beside)
    found = shutil.which("dbt")
    if found is None:
        raise FileNotFoundError(f"no dbt beside {sys.executable} nor on PATH")
    return found


def dbt_command(config: FollowConfig, project: Path, dbt: str) -> list[str]:
    command = [dbt, config.dbt_command, "--profiles-dir", str(project / "profiles")]
    command.append("--no-use-colors")
    if config.dbt_select:
        command += ["--select", *config.dbt_select.split()]
    return command + list(config.dbt_args)


def first_error_line(output: str, returncode: int) -> str:
    """What failed, in one line: the first node dbt's summary names (`Database Error in model
    x (path)`) with the line after it (the error), or the error that stopped dbt before any
    node (`Encountered an error:`, its kind, its text), else dbt's first ERROR line."""
    lines = [DBT_TIME_PREFIX.sub("", ANSI.sub("", line)).strip() for line in output.splitlines()]
    lines = [line for line in lines if line]
    for index, line in enumerate(lines):
        if DBT_SUMMARY_ERROR.match(line):
            detail = lines[index + 1] if index + 1 < len(lines) else ""
            return (f"{line}: {detail}" if detail else line)[:300]
        if line == "Encountered an error:":
            return ": ".join(lines[index + 1 : index + 3])[:300] or line
    for line in lines:
        if DBT_ERROR.search(line):
            return line[:300]
    return f"dbt exited with status {returncode}"


class Stop:
    """The signals that end the loop between steps, and the dbt run a second one interrupts."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        self.event = threading.Event()
        self.dbt: subprocess.Popen | None = None
        self.interrupted_dbt = False

    @property
    def requested(self) -> bool:
        return self.event.is_set()

    def handle(self, number: int, _frame: Any = None) -> None:
        if self.requested and self.dbt is not None and self.dbt.poll() is None:
            self.dbt.send_signal(signal.SIGINT)
            self.interrupted_dbt = True
        self.signal_name = self.signal_name or signal.Signals(number).name
        self.event.set()

    @contextmanager
    def installed(self) -> Iterator[None]:
        previous = {number: signal.signal(number, self.handle) for number in STOP_SIGNALS}
        try:
            yield
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def die_with_parent() -> None:
    """In dbt's process (Linux): SIGINT when `follow` dies, even by SIGKILL, so that no build
    outlives it and races the next start's build."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGINT))


def run_dbt(
    config: FollowConfig, project: Path, environ: Mapping[str, str], stop: Stop
) -> tuple[bool, str]:
    """One `dbt build` in the project, in its own process group (a terminal's Ctrl-C stops
    `follow` between steps, not dbt mid-build): success, and the first error line."""
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(
            dbt_command(config, project, dbt_executable()),
            cwd=project,
            env=dict(environ),
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent if sys.platform == "linux" else None,
        )
        stop.dbt = process
        try:
            returncode = process.wait()
        finally:
            stop.dbt = None
        if returncode == 0:
            return True, ""
        output.seek(0)
        return False, first_error_line(output.read().decode("utf-8", "replace"), returncode)


def behind(cursor: Any, entries: Sequence[FollowEntry], offsets: KafkaOffsets) -> int:
    """Offsets Kafka holds past the ledger, over every followed partition."""
    total = 0
    for entry in entries:
        topics = offsets.topics(entry.source)
        earliest, latest = offsets.offsets(entry.source.bootstrap, topics)
        held = held_offsets(cursor, entry.fmt, entry.source_name, topics)
        total += sum(max(0, end - held.get(key, earliest[key])) for key, end in latest.items())
    return total


def freshness(cursor: Any, schema: str, now: float) -> float | None:
    """Seconds from the newest progress the marts show to `now` (None before they exist)."""
    try:
        micros = run(
            cursor, f"select unix_micros(max(progress_at)) from {schema}.cdc_sync_progress"
        )[0][0]
    except ClientError:
        return None
    return None if micros is None else now - int(micros) / 1e6


@dataclass
class Follower:
    """The loop's state across cycles: whether the last build succeeded (the first cycle of a
    start always builds, whatever an earlier run left). `environ` is dbt's environment
    (CDC_LAKE_HOST and CDC_LAKE_PORT naming the server) and holds the JAAS text."""

    config: FollowConfig
    connect: Callable[[], AbstractContextManager[Any]]
    project: Path
    environ: Mapping[str, str] = field(default_factory=lambda: dict(os.environ))
    stop: Stop = field(default_factory=Stop)
    built: bool = False
    offsets: KafkaOffsets | None = None

    def kafka_offsets(self) -> KafkaOffsets:
        if self.offsets is None:
            source = self.config.entries[0].source
            self.offsets = KafkaOffsets(client_config(source, jaas_config(self.environ)))
        return self.offsets

    def cycle(self, number: int) -> Cycle:
        """One cycle: loads, behind, build, freshness; each step skipped once a stop is asked."""
        started = time.monotonic()
        landed = {entry.fmt: 0 for entry in self.config.entries}
        errors: list[str] = []
        lag: int | None = None
        fresh: float | None = None
        try:
            with self.connect() as cursor:
                for entry in self.config.entries:
                    if self.stop.requested:
                        break
                    try:
                        result = load_kafka(
                            cursor, entry.fmt, entry.source, entry.source_name,
                            max_messages=entry.max_messages, offsets=self.kafka_offsets(),
                            environ=self.environ,
                        )  # fmt: skip
                        landed[entry.fmt] += result.messages
                    except (ClientError, ValueError, OSError) as error:
                        errors.append(f"load failed {entry.label()}: {error}")
                if not self.stop.requested:
                    try:
                        lag = behind(cursor, self.config.entries, self.kafka_offsets())
                    except (ClientError, ValueError, OSError) as error:
                        errors.append(f"behind: {error}")
        except ClientError as error:  # the server cannot be reached: try again next cycle
            errors.append(f"server: {error}")
        dbt, dbt_s = "skipped", None
        if self.stop.requested:
            dbt = "not run"
        elif sum(landed.values()) or not self.built:
            dbt_started = time.monotonic()
            try:
                ok, error_line = run_dbt(self.config, self.project, self.environ, self.stop)
            except OSError as error:
                ok, error_line = False, str(error)
            dbt_s = time.monotonic() - dbt_started
            self.built = ok
            dbt = "ok" if ok else "stopped" if self.stop.interrupted_dbt else "failed"
            if not ok:
                errors.append(f"dbt: {error_line}")
        if not self.stop.requested:
            try:
                with self.connect() as cursor:
                    fresh = freshness(cursor, model_schema(self.environ), time.time())
            except ClientError:
                fresh = None
        return Cycle(
            number=number,
            landed=landed,
            behind=lag,
            freshness_s=fresh,
            dbt=dbt,
            dbt_s=dbt_s,
            seconds=time.monotonic() - started,
            errors=tuple(errors),
        )

    def follow(self, cycles: int | None = None, echo: Callable[[str], None] = print) -> list[Cycle]:
        """Cycles until `cycles` have run or a signal asks to stop; each cycle's line echoed."""
        done: list[Cycle] = []
        with self.stop.installed():
            while cycles is None or len(done) < cycles:
                cycle = self.cycle(len(done) + 1)
                done.append(cycle)
                echo(cycle.line())
                if self.stop.requested:
                    break
                if cycles is None or len(done) < cycles:
                    self.stop.event.wait(self.config.interval_s)
                if self.stop.requested:
                    break
        if self.stop.requested:
            echo(f"stopped ({self.stop.signal_name}) after cycle {len(done)}")
        return done
