"""Hostile input never stops a run and loses nothing: the fuzz harness over every format.

A build of its own, in schemas of its own on the session's server (so no other module sees
its rows): per format the bundled samples as they are, the same samples in the `fuzzctl_`
namespace, and mutants of them in the `fuzz_` namespace (support/fuzzing.py; 1,200 by default over
every format, seeded; `--fuzz-messages N --fuzz-seed S` runs others). The build must run
every model, fail no error-severity test, account for every hostile message once, keep every
rejected one with a reason, and give the control copies exactly the state the samples give:
bad input corrupts nothing else.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
import yaml
from support.fuzzing import (
    CONTROL_PREFIX,
    NAME_CHARACTERS,
    PREFIX,
    control_key_settings,
    dumps,
    limit_messages,
    write_fuzz_files,
)
from support.pipeline import compiled_inline, node_errors, query, run_dbt
from support.project import PROJECT_ROOT, SAMPLES

from cdc_lake import server
from cdc_lake.client import connect
from cdc_lake.formats import FORMATS
from cdc_lake.loader import load_files

pytestmark = pytest.mark.spark

SCHEMA = "cdc_lake_fuzz"
RAW_SCHEMA = "cdc_raw_fuzz"
INTERMEDIATE = f"{SCHEMA}_intermediate"
STAGING = f"{SCHEMA}_staging"
FUZZ_FILE = "source_file like '%/fuzz-landing%/%'"
MUTANT_FILE = "source_file like '%/fuzz-landing%/%.mutants.%'"
SAMPLE_FILE = "source_file like '%/seeds/samples/%'"


@pytest.fixture(scope="module")
def fuzz_build(
    spark_server: server.ServerConfig,
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
) -> Any:
    """The samples, their control copies and the mutants loaded into a landing schema of
    their own, then `dbt build` into model schemas of its own. Prints what it staged."""
    folder = tmp_path_factory.mktemp("fuzz-landing")
    total = request.config.getoption("--fuzz-messages")
    seed = request.config.getoption("--fuzz-seed")
    formats = sorted(path.name for path in SAMPLES.iterdir() if path.is_dir())
    for fmt in formats:
        write_fuzz_files(folder / fmt, fmt, -(-total // len(formats)), seed)
    limits = b"".join(message + b"\n" for message, _ in limit_messages())
    (folder / "canal_json" / "canal_json.limits.jsonl").write_bytes(limits)
    project_vars = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["vars"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_SCHEMA", SCHEMA)
        patch.setenv("CDC_LAKE_RAW_SCHEMA", RAW_SCHEMA)
        with connect(spark_server.host, spark_server.port) as cursor:
            for fmt in formats:
                load_files(cursor, fmt, [SAMPLES / fmt, folder / fmt])
        started = time.monotonic()
        result = run_dbt(
            *("build", "--target-path", str(tmp_path_factory.mktemp("fuzz-target"))),
            *("--vars", json.dumps(control_key_settings(project_vars))),
        )
        seconds = time.monotonic() - started
    broken = node_errors(result)
    if broken:
        pytest.fail("the fuzz build could not run every node:\n" + "\n".join(broken))
    print(f"fuzz build: {total} hostile messages (seed {seed}), dbt build {seconds:.1f} s")
    return result


def test_the_build_runs_every_node_and_fails_no_error_test(fuzz_build: Any) -> None:
    outcomes = {result.node.name: result for result in fuzz_build.result.results}
    broken = {
        name: f"{result.status}: {result.message}"
        for name, result in outcomes.items()
        if result.status not in ("success", "pass", "warn")
    }
    assert broken == {}


def test_every_hostile_message_is_accounted_for_once(fuzz_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, count(*) as messages, count(distinct source_file, source_position)
            as distinct_messages, sum(cast(is_unaccounted as int)) as unaccounted,
            sum(rejected_rows) as rejected_rows
        from {INTERMEDIATE}.int_cdc__message_accounting
        where {MUTANT_FILE}
        group by source_format""",
    )
    by_format = {row["source_format"]: row for row in rows}
    assert sorted(by_format) == sorted(FORMATS)
    for fmt, row in by_format.items():
        assert row["messages"] == row["distinct_messages"], fmt
        assert row["unaccounted"] == 0, fmt
        # The mutants are hostile: most of every format's are rejected, and kept.
        assert row["rejected_rows"] >= row["messages"] // 4, (fmt, row)


def test_every_rejected_message_is_one_row_with_a_reason(fuzz_build: Any, cursor: Any) -> None:
    """One row per rejected message, or per untrackable row-change of a staged one."""
    rows = query(
        cursor,
        f"""
        select source_format, source_file, source_position, row_index, count(*) as rows,
            min(coalesce(length(trim(rejection_reason)), 0)) as shortest_reason
        from {INTERMEDIATE}.int_cdc__rejected_messages
        where {FUZZ_FILE}
        group by source_format, source_file, source_position, row_index
        having count(*) > 1 or min(coalesce(length(trim(rejection_reason)), 0)) = 0""",
    )
    assert rows == []


def test_hostile_messages_reach_only_tables_of_their_own(fuzz_build: Any, cursor: Any) -> None:
    shared = query(
        cursor,
        f"""
        select distinct hostile.table_key
        from {INTERMEDIATE}.int_cdc__change_log as hostile
        inner join {INTERMEDIATE}.int_cdc__change_log as other
            on hostile.table_key = other.table_key
        where hostile.{MUTANT_FILE} and not other.{MUTANT_FILE}""",
    )
    assert shared == []


def test_the_control_copies_give_the_state_the_samples_give(fuzz_build: Any, cursor: Any) -> None:
    """Every table only the bundled samples write has a `fuzzctl_` twin, loaded beside the
    mutants, whose current state is the same row for row."""

    def state(where: str) -> list[dict[str, Any]]:
        return query(
            cursor,
            f"""
            with sample_only_tables as (
                select table_key from {INTERMEDIATE}.int_cdc__change_log
                group by table_key
                having bool_and({SAMPLE_FILE})
            )
            select
                replace(state.table_key, '{CONTROL_PREFIX}', '') as table_key,
                state.primary_key, to_json(state.row_data) as row_data, state.is_deleted,
                state.last_op, state.version_count
            from {SCHEMA}.cdc_current_state as state
            where replace(state.table_key, '{CONTROL_PREFIX}', '') in (
                select table_key from sample_only_tables
            ) and {where}
            order by 1, 2""",
        )

    samples = state(f"state.table_key not like '%{CONTROL_PREFIX}%'")
    controls = state(f"state.table_key like '%{CONTROL_PREFIX}%'")
    formats = {row["table_key"] for row in samples}
    assert len(formats) >= 8, formats
    assert controls == samples
    assert not any(PREFIX in row["table_key"] for row in samples)


def test_a_message_over_a_limit_is_rejected_with_the_limit_as_its_reason(
    fuzz_build: Any, cursor: Any
) -> None:
    """Canal messages at each of the README's limits are staged; one past it is rejected,
    whole or (for a row's columns) the one row, with the limit in its reason."""
    rows = query(
        cursor,
        f"""
        select source_position, row_index, rejection_reason
        from {STAGING}.stg_canal__json
        where source_file like '%/canal_json.limits.jsonl'
        order by source_position, row_index""",
    )
    positions = sorted({row["source_position"] for row in rows})
    found = [
        [row["rejection_reason"] for row in rows if row["source_position"] == position]
        for position in positions
    ]
    expected = [outcomes for _, outcomes in limit_messages()]
    assert found == expected


def test_a_column_name_over_the_limit_is_kept_and_reported(fuzz_build: Any) -> None:
    """The limit messages' 257-character column name (and the mutants' longer ones)."""
    outcomes = {result.node.name: result for result in fuzz_build.result.results}
    reported = outcomes["assert_column_names_within_the_limit"]
    assert (reported.status, reported.failures >= 1) == ("warn", True), reported.message


def test_every_hostile_table_gets_a_typed_model(
    fuzz_build: Any, cursor: Any, tmp_path: Any
) -> None:
    """cdc_typed_current_state over every table the mutants and the limit messages made (odd
    and very long column names, case twins, quotes, backticks): each compiles and is written
    as a parquet table, as a typed model is, with no column over the name limit."""
    table_keys = [
        row["table_key"]
        for row in query(
            cursor,
            f"select distinct table_key from {SCHEMA}.cdc_table_schemas "
            f"where table_key like '{PREFIX}%' order by table_key",
        )
    ]
    assert len(table_keys) >= 10, table_keys
    separator = "-- next typed model --"
    calls = "".join(
        "{{ cdc_typed_current_state(" + dumps(key).decode() + ") }}\n" + separator + "\n"
        for key in table_keys
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_SCHEMA", SCHEMA)
        patch.setenv("CDC_LAKE_RAW_SCHEMA", RAW_SCHEMA)
        compiled = compiled_inline(calls, tmp_path).split(separator)[:-1]
    assert len(compiled) == len(table_keys)
    for number, (table_key, sql) in enumerate(zip(table_keys, compiled, strict=True)):
        typed = f"{SCHEMA}.typed_fuzz_{number}"
        cursor.execute(f"drop table if exists {typed}")
        cursor.execute(f"create table {typed} using parquet as {sql}")
        names = [row["col_name"] for row in query(cursor, f"describe table {typed}")]
        assert names[-4:] == [
            "_cdc_primary_key",
            "_cdc_last_op",
            "_cdc_last_source_ts",
            "_cdc_last_ordering_key",
        ], table_key
        assert all(len(name) <= NAME_CHARACTERS for name in names), table_key
        assert len({name.lower() for name in names}) == len(names), table_key
