"""`cdc-lake follow` without a server: its config's validation (one line naming the key), the
cycle line's format (what the freshness benchmark parses), dbt's command and error line."""

from __future__ import annotations

import copy
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from support.project import PROJECT_ROOT

from cdc_lake.follow import (
    CYCLE_LINE,
    Cycle,
    FollowConfigError,
    Stop,
    dbt_command,
    first_error_line,
    load_config,
    parse_config,
)

VALID: dict[str, Any] = {
    "kafka": {"bootstrap": "k1:9092", "options": {"kafka.security.protocol": "SASL_SSL"}},
    "topics": [
        {"format": "canal_json", "topics": ["a", "b"]},
        {"format": "debezium_json", "pattern": "pg1\\..*", "source": "pg1", "max_messages": 10},
    ],
    "dbt": {"select": "+cdc_current_state", "args": ["--vars", "{cdc_lake_formats: all}"]},
    "interval": 5,
}


def changed(path: tuple, value: Any) -> dict[str, Any]:
    """VALID with the key at `path` set to `value` (deleted when value is ...)."""
    document = copy.deepcopy(VALID)
    target = document
    for key in path[:-1]:
        target = target[key]
    if value is ...:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return document


def test_the_valid_config() -> None:
    config = parse_config(VALID)
    canal, debezium = config.entries
    assert (canal.fmt, canal.source.topics, canal.source.pattern) == (
        "canal_json",
        ("a", "b"),
        None,
    )
    assert canal.source.options == {"kafka.security.protocol": "SASL_SSL"}
    assert (debezium.source.pattern, debezium.source_name, debezium.max_messages) == (
        "pg1\\..*",
        "pg1",
        10,
    )
    assert (config.dbt_select, config.dbt_args, config.interval_s) == (
        "+cdc_current_state",
        ("--vars", "{cdc_lake_formats: all}"),
        5.0,
    )


def test_defaults() -> None:
    config = parse_config({"kafka": {"bootstrap": "k:9092"}, "topics": [VALID["topics"][0]]})
    assert (config.dbt_select, config.dbt_args, config.interval_s) == (None, (), 60.0)
    assert config.entries[0].source.options == {}


def test_the_example_in_the_repository_is_valid() -> None:
    config = load_config(PROJECT_ROOT / "profiles" / "follow.example.yml")
    assert [entry.fmt for entry in config.entries] == ["canal_json", "debezium_json"]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("surprise",), 1, "surprise: unknown key"),
        (("kafka",), ..., "kafka: a mapping"),
        (("kafka", "bootstrap"), "", "kafka.bootstrap:"),
        (("kafka", "brokers"), "x", "kafka.brokers: unknown key"),
        (("kafka", "options"), ["a"], "kafka.options: a mapping"),
        (
            ("kafka", "options", "kafka.group.id"),
            "g",
            "kafka.options: cdc-lake sets kafka.group.id",
        ),
        (("kafka", "options", "kafka.sasl.jaas.config"), "x", "CDC_LAKE_KAFKA_JAAS"),
        (("kafka", "options", "x"), {"y": 1}, "kafka.options.x: a value"),
        (("topics",), [], "topics: a list"),
        (("topics", 0, "format"), "canal", "topics[0].format: 'canal' is not a format"),
        (("topics", 0, "pattern"), "x", "topics[0]: name its topics"),
        (("topics", 0, "topics"), ..., "topics[0]: name its topics"),
        (("topics", 0, "topics"), "a", "topics[0].topics: a list"),
        (("topics", 0, "topic"), ["a"], "topics[0].topic: unknown key"),
        (("topics", 1, "pattern"), "(", "topics[1].pattern: not a regular expression"),
        (("topics", 1, "source"), "a b", "topics[1].source: source name"),
        (("topics", 1, "max_messages"), 0, "topics[1].max_messages:"),
        (("topics", 1, "max_messages"), True, "topics[1].max_messages:"),
        (("topics", 1), "canal_json", "topics[1]: a mapping"),
        (("dbt", "select"), "", "dbt.select:"),
        (("dbt", "args"), "--full-refresh", "dbt.args: a list of strings"),
        (("dbt", "args"), ["--select", "x"], "dbt.args: name the selection in dbt.select"),
        (("dbt", "exclude"), "x", "dbt.exclude: unknown key"),
        (("interval",), -1, "interval: seconds"),
        (("interval",), "5s", "interval: seconds"),
    ],
)
def test_a_bad_key_is_named(path: tuple, value: Any, message: str) -> None:
    with pytest.raises(FollowConfigError) as raised:
        parse_config(changed(path, value))
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_one_entry_per_format_and_source() -> None:
    document = changed(("topics", 1), {"format": "canal_json", "topics": ["c"]})
    with pytest.raises(FollowConfigError, match=r"topics\[1\]: same format and source as"):
        parse_config(document)
    document["topics"][1]["source"] = "other"
    assert len(parse_config(document).entries) == 2


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "none.yml"
    with pytest.raises(FollowConfigError, match=r"none\.yml: cannot read it"):
        load_config(missing)
    broken = tmp_path / "broken.yml"
    broken.write_text("kafka: [unclosed\n")
    with pytest.raises(FollowConfigError, match=r"broken.yml: not YAML \(line \d+\)"):
        load_config(broken)
    empty = tmp_path / "empty.yml"
    empty.write_text("")
    with pytest.raises(FollowConfigError, match=r"empty\.yml: the file: a mapping"):
        load_config(empty)


def test_the_cycle_line() -> None:
    cycle = Cycle(
        number=12,
        landed={"canal_json": 5000, "debezium_json": 0, "maxwell_json": 7},
        behind=0,
        freshness_s=14.24,
        dbt="ok",
        dbt_s=9.81,
        seconds=12.06,
    )
    line = cycle.line()
    assert line == (
        "cycle 12: landed 5007 messages (canal_json 5000, maxwell_json 7), behind 0, "
        "freshness 14.2 s, dbt ok 9.8 s, cycle 12.1 s"
    )
    match = CYCLE_LINE.fullmatch(line)
    assert match is not None
    assert match.groupdict() == {
        "number": "12",
        "landed": "5007",
        "formats": "canal_json 5000, maxwell_json 7",
        "behind": "0",
        "freshness": "14.2",
        "dbt": "ok",
        "dbt_seconds": "9.8",
        "seconds": "12.1",
        "errors": None,
    }


def test_the_cycle_line_with_unknowns_and_errors() -> None:
    cycle = Cycle(
        number=3,
        landed={"canal_json": 0},
        behind=None,
        freshness_s=None,
        dbt="failed",
        dbt_s=2.0,
        seconds=3.0,
        errors=("load failed canal_json: cannot reach\nKafka", "dbt: Database Error in model x"),
    )
    line = cycle.line()
    assert line == (
        "cycle 3: landed 0 messages, behind ?, freshness ?, dbt failed 2.0 s, cycle 3.0 s; "
        "load failed canal_json: cannot reach Kafka; dbt: Database Error in model x"
    )
    match = CYCLE_LINE.fullmatch(line)
    assert match is not None
    assert (match["formats"], match["behind"], match["freshness"], match["dbt"]) == (
        None,
        "?",
        None,
        "failed",
    )
    assert match["errors"].startswith("load failed canal_json")
    for dbt in ("skipped", "not run"):
        skipped = Cycle(3, {"canal_json": 0}, 4, 1.0, dbt, None, 0.5).line()
        assert CYCLE_LINE.fullmatch(skipped)["dbt"] == dbt  # type: ignore[index]
        assert f"dbt {dbt}, cycle 0.5 s" in skipped


def test_dbt_command(tmp_path: Path) -> None:
    config = parse_config(VALID)
    assert dbt_command(config, tmp_path, "/venv/bin/dbt") == [
        "/venv/bin/dbt", "build", "--profiles-dir", str(tmp_path / "profiles"), "--no-use-colors",
        "--select", "+cdc_current_state", "--vars", "{cdc_lake_formats: all}",
    ]  # fmt: skip
    plain = parse_config({"kafka": {"bootstrap": "k:1"}, "topics": [VALID["topics"][0]]})
    assert dbt_command(plain, tmp_path, "dbt")[1:] == [
        "build", "--profiles-dir", str(tmp_path / "profiles"), "--no-use-colors",
    ]  # fmt: skip
    runs = parse_config({**VALID, "dbt": {"command": "run"}})
    assert dbt_command(runs, tmp_path, "dbt")[1] == "run"
    with pytest.raises(FollowConfigError, match=r"dbt.command: build .* or run"):
        parse_config({**VALID, "dbt": {"command": "test"}})


def test_first_error_line() -> None:
    output = (
        "\x1b[0m04:01:02  Running with dbt=1.11.16\n"
        "04:01:09  1 of 3 ERROR creating sql table model x.stg_canal__json ... [ERROR in 1.2s]\n"
        "04:01:10  \n"
        "04:01:10  Completed with 1 error, 0 partial successes, and 0 warnings:\n"
        "04:01:10  \n"
        "\x1b[31m04:01:10  Database Error in model stg_canal__json (models/stg.sql)\x1b[0m\n"
        "04:01:10    [TABLE_OR_VIEW_NOT_FOUND] The table cannot be found.\n"
    )
    assert first_error_line(output, 1) == (
        "Database Error in model stg_canal__json (models/stg.sql): "
        "[TABLE_OR_VIEW_NOT_FOUND] The table cannot be found."
    )
    assert first_error_line("04:01:09  1 of 3 ERROR creating x\n", 1) == "1 of 3 ERROR creating x"
    early = (
        "04:53:00  Running with dbt=1.11.16\n04:53:00  Encountered an error:\nRuntime Error\n"
        "  The profile 'cdc_lake' does not have a target named 'nosuch'.\n   - local\n"
    )
    assert first_error_line(early, 2) == (
        "Runtime Error: The profile 'cdc_lake' does not have a target named 'nosuch'."
    )
    assert first_error_line("nothing useful\n", 2) == "dbt exited with status 2"


def test_a_second_signal_is_what_interrupts_dbt() -> None:
    stop = Stop()
    stop.dbt = subprocess.Popen(["sleep", "60"])
    try:
        stop.handle(signal.SIGTERM)
        assert stop.requested and stop.signal_name == "SIGTERM"
        assert stop.dbt.poll() is None and not stop.interrupted_dbt  # the build goes on
        stop.handle(signal.SIGINT)
        assert stop.dbt.wait(10) == -signal.SIGINT and stop.interrupted_dbt
        assert stop.signal_name == "SIGTERM"
    finally:
        stop.dbt.kill()
        stop.dbt.wait()
