"""Incremental runs: a generated stream loaded in batches, dbt run after each, equals one
full-refresh run over everything, row for row, and equals what the source database holds.

The stream (a few thousand changes) is written by a small simulation of two source tables
(support/simulated_source.py): a MySQL table through Debezium (snapshot rows, inserts, updates,
deletes, re-inserts of deleted keys, key changes as delete + insert, truncates), a MongoDB
collection through Huawei DRS (inserts, `$set`/`$unset` partial updates, replaces, deletes) and
a MySQL table through DataWorks (inserts, deletes, updates sent as two messages, UPDATE_BEFOR
then UPDATE_AFTER, some changing the key). Delivery is out of order across files and batches,
except that the two halves of an update keep their order (they share a Kafka partition) but may
be cut apart by a batch boundary; some messages are delivered twice, in a later batch.

Everything runs in its own landing schema and model schemas on the session's server
(`CDC_LAKE_RAW_SCHEMA`, `CDC_LAKE_SCHEMA`), so it neither sees nor disturbs the other tests.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from support.pipeline import compiled_inline, query, run_dbt, scalar
from support.simulated_source import Message, SourceDatabase, deliveries, simulate, write_batch

from cdc_lake.client import connect, run
from cdc_lake.formats import bootstrap_statements
from cdc_lake.loader import load_files

SEED = 20261122
BATCHES = 3
ITEMS_TABLE_KEY = "gen/shop.items"  # Debezium: its connector `gen` is its source
DOCS_TABLE_KEY = "gen.docs"
PRICES_TABLE_KEY = "shop.prices"
MARTS = ["--select", "+cdc_current_state", "+cdc_table_schemas", "+cdc_sync_progress"]
# The batches never compact by size, so every run after the first writes a history delta;
# one run in between compacts on demand (the test crosses a compaction).
DELTAS_ONLY = {"cdc_lake_compaction_ratio": 1000}
COMPACT = {"cdc_lake_compaction_ratio": 1000, "cdc_lake_compact": True}
COMPACT_AFTER_BATCH = 1
# Appended tables of both pipelines (the incremental materialization rewrites them as a few
# files: macro compact_appended_table), as (schema suffix, table).
APPENDED = (
    ("staging", "stg_dataworks__json"),
    ("intermediate", "int_cdc__row_versions"),
    ("intermediate", "int_cdc__message_accounting"),
)
# Models that overwrite a generation and record the loads they read (a run that reads a
# load twice would count it twice in the sync totals).
OVERWRITING_RECORDERS = (
    ("intermediate", "int_cdc__table_sightings"),
    ("intermediate", "int_cdc__sync_progress_totals"),
)
# The DataWorks pipeline's batches rewrite an appended table at every run that appends.
REWRITE_EACH_APPEND = {"cdc_lake_compaction_appends": 1}
# The DataWorks table alone: no truncate and no partial change, so the history's fold leaves
# those parts out of its plan (macro history_version_kinds); it must come to the same rows.
PLAIN_FORMATS = ["dataworks_json"]
# The whole stream's pipeline reads its three formats and one it never sends (its staging must
# cost a run with nothing new no insert either); the other eleven would add only runs of
# models with nothing to stage.
GEN_FORMATS = ["debezium_json", "drs_mongo", "dataworks_json", "ogg_json"]
FOLD_PARTS = ("fold_truncate_versions", "fold_column_writes")
# In the delta's statement when it reads the stored rows within the range of the touched keys.
STORED_KEY_RANGE = "primary_key between cast(unbase64('"
# In the delta's statement when it looks for keys with a late change (macro history_in_order).
LATE_KEY_LOOKUP = "late_keys as ("
# Models that run no insert when nothing is new (macros writes_nothing, select_new_rows):
# the history's two halves and the row versions; staging of a format the stream uses and of
# one it never sends (its table holds no row: the probe of every load finds none).
IDLE_MODELS = ("int_cdc__row_history_base", "int_cdc__row_history_delta", "int_cdc__row_versions")
IDLE_STAGING = ("stg_debezium__json", "stg_ogg__json")
# How a model asks for its new loads when it has no record of the loads it read (macro
# loaded_since_last_run): staging's question for the newest load it holds, and the probe by
# the models after it of the tables they read (the staging tables, the accounting) for loads
# after the newest they hold (staging's read of its landing table's loads after a literal,
# which names them for the insert, is no such probe).
LOAD_PROBES = re.compile(
    r"select unix_micros\(\( select coalesce\(max\(loaded_at\)"
    r"|select distinct unix_micros\(loaded_at\) as load_micros from .*"
    r"> \( select coalesce\(max\("
)
# The record of the loads an appended table has read (macro recorded_loads): blank, as a run
# stopped between its insert and its record leaves it.
BLANK_RECORD = "set tblproperties ('cdc_lake.loads_read_through' = '')"


@contextmanager
def environment(raw_schema: str, model_schema: str, target: Path) -> Iterator[None]:
    """Landing schema, model schema and dbt target folder of one isolated pipeline."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CDC_LAKE_RAW_SCHEMA", raw_schema)
        patch.setenv("CDC_LAKE_SCHEMA", model_schema)
        patch.setenv("DBT_TARGET_PATH", str(target))
        yield


def dbt_run(*args: str) -> Any:
    """dbt's result of a run that must succeed, every node of it."""
    result = run_dbt(*args)
    failures = [r.node.name for r in (result.result or []) if r.status != "success"]
    assert result.success and not failures, f"dbt {args[0]} failed: {result.exception or failures}"
    return result


def start_pipeline(cursor: Any, vars_args: list[str]) -> None:
    """What `cdc-lake serve` does for its landing schema, and the seeds, seeded with the
    `--vars` of the pipeline's first run (those of its formats): the run then starts from
    the seed's parse of the project (run_dbt) instead of parsing it again."""
    for statement in bootstrap_statements():
        run(cursor, statement)
    dbt_run("seed", *vars_args)


def snapshot(cursor: Any, schema: str) -> dict[str, list[tuple]]:
    """The marts of one pipeline, comparable as sorted tuples (maps as sorted JSON). Ordering
    keys are left out: their last tie-breaks are the load time, which differs between the two
    pipelines; event ids and version numbers carry the order."""
    state = query(
        cursor,
        f"""
        select table_key, primary_key, to_json(array_sort(map_entries(row_data))) as row_data,
            to_json(column_types) as column_types,
            is_deleted, last_op, last_event_id, version_count,
            cast(last_source_ts as string) as last_source_ts
        from {schema}.cdc_current_state""",
    )
    history = query(
        cursor,
        f"""
        select table_key, primary_key, version_number, op, is_deleted, is_current, event_id,
            to_json(array_sort(map_entries(row_data))) as row_data,
            to_json(column_types) as column_types,
            cast(valid_from as string) as valid_from,
            cast(valid_to as string) as valid_to
        from {schema}.cdc_row_history""",
    )
    schemas = query(
        cursor,
        f"""
        select table_key, column_name, database_name, schema_name, table_name, db_type,
            column_position, source_type, spark_type, is_primary_key, type_source,
            cast(last_seen_at as string) as last_seen_at
        from {schema}.cdc_table_schemas""",
    )
    progress = query(
        cursor,
        f"""
        select source_format, kafka_topic, cast(last_heartbeat_at as string) as heartbeat,
            cast(last_event_at as string) as event, cast(last_sync_at as string) as sync,
            cast(newest_change_source_ts as string) as newest_change,
            newest_change_sync_delay_seconds, messages, change_messages, heartbeat_messages,
            schema_change_messages, transaction_messages, tombstone_messages,
            logical_message_messages, rejected_messages, duplicate_messages,
            unaccounted_messages, change_rows, rejected_rows
        from {schema}.cdc_sync_progress""",
    )
    return {
        "state": sorted(tuple(row.values()) for row in state),
        "history": sorted(tuple(row.values()) for row in history),
        "schemas": sorted(tuple(row.values()) for row in schemas),
        "progress": sorted(tuple(map(str, row.values())) for row in progress),
    }


def dbt_vars(values: dict[str, Any], formats: list[str]) -> list[str]:
    """`--vars` of one run: `values`, and the formats the pipeline reads."""
    return ["--vars", json.dumps(values | {"cdc_lake_formats": formats})]


def load_batch(cursor: Any, batch_files: dict[str, Path], formats: list[str]) -> None:
    """Lands a batch's files of `formats`."""
    for fmt, path in batch_files.items():
        if fmt in formats:
            load_files(cursor, fmt, [path])


def fold_parts(target: Path, model: str) -> set[str]:
    """Which optional parts of the fold the last compiled SQL of `model` holds."""
    compiled = target / f"compiled/cdc_lake/models/intermediate/{model}.sql"
    sql = compiled.read_text(encoding="utf-8")
    return {part for part in FOLD_PARTS if part in sql}


def history_fold_parts(cursor: Any, schema: str) -> set[str]:
    """The optional parts of the fold that the row versions of `schema` call for: the
    truncate part where any version is a truncate, the column-by-column part where any is a
    partial change (counted, old versions too)."""
    truncates, partial_changes = query(
        cursor,
        f"""select count_if(op = 'truncate') > 0 as truncates, count_if(is_partial) > 0 as partial
        from {schema}_intermediate.int_cdc__row_versions""",
    )[0].values()
    return {
        part for part, kind in zip(FOLD_PARTS, (truncates, partial_changes), strict=True) if kind
    }


def executed_statement(target: Path, model: str) -> str:
    """The statement the last dbt run executed for `model`, of intermediate/ or (as
    <folder>/<model>) of another folder of models/ (dbt writes it under run/)."""
    path = model if "/" in model else f"intermediate/{model}"
    executed = target / f"run/cdc_lake/models/{path}.sql"
    return " ".join(executed.read_text(encoding="utf-8").split())


def dbt_log() -> Path:
    """The session's dbt.log (conftest: DBT_LOG_PATH)."""
    return Path(os.environ["DBT_LOG_PATH"]) / "dbt.log"


def dbt_log_size() -> int:
    """Where the session's dbt.log ends now (0 before its first run)."""
    return dbt_log().stat().st_size if dbt_log().exists() else 0


def logged_statements(log_offset: int) -> list[tuple[str, str]]:
    """The statements dbt logged for models after `log_offset`, in order, as (model,
    statement with its whitespace collapsed)."""
    with dbt_log().open(encoding="utf-8", errors="replace") as logged:
        logged.seek(log_offset)
        text = re.sub(r"\x1b\[[0-9;]*m", "", logged.read())
    statements = []
    for entry in re.split(r"^\d\d:\d\d:\d\d\.\d+ ", text, flags=re.M):
        found = re.search(r"On model\.cdc_lake\.(\w+): /\*.*?\*/(.*)", entry, re.S)
        if found:
            statements.append((found.group(1), " ".join(found.group(2).split())))
    return statements


def landing_watermarks(statements: list[tuple[str, str]], raw_schema: str) -> dict[str, str]:
    """What each staging model's probe of its landing table (of `raw_schema`) compared
    `loaded_at` with, by landing table, among `statements` (logged_statements): the function
    of a value (`timestamp_micros(`) or the parenthesis of a subquery (`(`)."""
    pattern = rf"from {raw_schema}\.(\w+) where loaded_at > (\S+)"
    probes = [found for _, statement in statements for found in re.findall(pattern, statement)]
    return {table: watermark.split("(")[0] + "(" for table, watermark in probes}


def load_probes(statements: list[tuple[str, str]]) -> set[str]:
    """The models whose statements among `statements` asked for their new loads by reading
    tables (LOAD_PROBES), not from the records of the loads read."""
    return {model for model, statement in statements if LOAD_PROBES.match(statement)}


def base_row_counts(cursor: Any, schema: str) -> tuple[int | None, int]:
    """The history base's row count as its post-hook recorded it (table property
    cdc_lake.row_count, which macro history_compaction_due reads), and as counted."""
    base = f"{schema}_intermediate.int_cdc__row_history_base"
    properties = dict(run(cursor, f"show tblproperties {base}"))
    recorded = properties.get("cdc_lake.row_count")
    counted = scalar(cursor, f"select count(*) from {base}")
    return (None if recorded is None else int(recorded), counted)


def versions_since_base(cursor: Any, schema: str) -> tuple[tuple[int, int] | None, tuple[int, int]]:
    """The versions loaded since the history base's generation, with that generation, as the
    delta's post-hook recorded them (table properties cdc_lake.versions_since_base and
    cdc_lake.base_generation, which macro history_compaction_due reads), and as counted."""
    intermediate = f"{schema}_intermediate"
    properties = dict(run(cursor, f"show tblproperties {intermediate}.int_cdc__row_history_delta"))
    count = properties.get("cdc_lake.versions_since_base")
    since = properties.get("cdc_lake.base_generation")
    generation = scalar(
        cursor, f"select max(generation) from {intermediate}.int_cdc__row_history_base"
    )
    counted = scalar(
        cursor,
        f"""select count(*) from {intermediate}.int_cdc__row_versions
        where loaded_at > timestamp_micros({generation})""",
    )
    recorded = None if count is None or since is None else (int(count), int(since))
    return (recorded, (counted, generation))


def recorded_kinds(cursor: Any, schema: str) -> dict[str, tuple[Any, Any]]:
    """Of the truncates and partial changes: whether the history base's versions hold one,
    as its post-hook recorded it (table properties cdc_lake.truncates and
    cdc_lake.partial_changes) and as counted among the versions loaded up to its generation;
    and how many were loaded since, as the delta's post-hook recorded them
    (cdc_lake.truncates_since_base, cdc_lake.partial_changes_since_base) and as counted.
    Macro history_delta_kinds reads them in place of counting every version."""
    intermediate = f"{schema}_intermediate"
    base = dict(run(cursor, f"show tblproperties {intermediate}.int_cdc__row_history_base"))
    delta = dict(run(cursor, f"show tblproperties {intermediate}.int_cdc__row_history_delta"))
    generation = base.get("cdc_lake.generation")
    counted = query(
        cursor,
        f"""
        select
            count_if(op = 'truncate' and loaded_at <= timestamp_micros({generation})) > 0
                as base_truncates,
            count_if(is_partial and loaded_at <= timestamp_micros({generation})) > 0
                as base_partial_changes,
            count_if(op = 'truncate' and loaded_at > timestamp_micros({generation}))
                as truncates_since_base,
            count_if(is_partial and loaded_at > timestamp_micros({generation}))
                as partial_changes_since_base
        from {intermediate}.int_cdc__row_versions""",
    )[0]
    recorded = {
        "base_truncates": base.get("cdc_lake.truncates"),
        "base_partial_changes": base.get("cdc_lake.partial_changes"),
        "truncates_since_base": delta.get("cdc_lake.truncates_since_base"),
        "partial_changes_since_base": delta.get("cdc_lake.partial_changes_since_base"),
    }
    return {
        kind: (recorded[kind], str(value).lower() if isinstance(value, bool) else str(value))
        for kind, value in counted.items()
    }


def appended_tables(
    cursor: Any, schema: str
) -> dict[str, tuple[int, frozenset[str], str | None, str | None]]:
    """Each appended table's rows, files, count of the runs that appended to it since it was
    created or last rewritten (table property cdc_lake.appends_since_compaction) and rows
    when last rewritten (cdc_lake.rows_at_compaction)."""
    state = {}
    for suffix, table in APPENDED:
        name = f"{schema}_{suffix}.{table}"
        rows = scalar(cursor, f"select count(*) from {name}")
        files = frozenset(
            path for (path,) in run(cursor, f"select distinct _metadata.file_path from {name}")
        )
        properties = dict(run(cursor, f"show tblproperties {name}"))
        state[table] = (
            rows,
            files,
            properties.get("cdc_lake.appends_since_compaction"),
            properties.get("cdc_lake.rows_at_compaction"),
        )
    return state


def compact_by_size(cursor: Any, name: str, formats: list[str]) -> dict[str, Any]:
    """A run with nothing new and var cdc_lake_compaction_ratio 0, so that any version
    since the base makes the compaction due: the rows before and after it, and the
    delta's rows and its count of the versions since the base after it."""
    before = snapshot(cursor, f"{name}_batches")
    dbt_run("run", *MARTS, *dbt_vars({"cdc_lake_compaction_ratio": 0}, formats))
    delta = f"{name}_batches_intermediate.int_cdc__row_history_delta"
    return {
        "before": before,
        "after": snapshot(cursor, f"{name}_batches"),
        "delta_rows": scalar(cursor, f"select count(*) from {delta}"),
        "versions_since_base": versions_since_base(cursor, f"{name}_batches"),
    }


def run_batches(
    cursor: Any,
    files: list[dict[str, Path]],
    work: Path,
    name: str,
    formats: list[str],
    batch_vars: dict[str, Any] = DELTAS_ONLY,
    stopped_after: int | None = None,
) -> dict[str, Any]:
    """The batches run one by one (schema <name>_batches, `batch_vars`), with a compaction
    after batch COMPACT_AFTER_BATCH: the snapshots taken after each run, the fold parts the
    first run's base and each delta were planned with, the appended tables after each run
    (the compaction's run among them), the delta's rows after the last batch, whether each
    delta's statement looked for late keys, and the statements each run after the first
    logged. After batch `stopped_after`, each record of the loads read (of the appended
    tables and OVERWRITING_RECORDERS) is blanked, as a run stopped between its inserts and
    their records leaves them."""
    snapshots = []
    appended = []
    delta_parts = []
    history_parts = []
    delta_key_ranges = []
    late_key_lookups = []
    named_loads = []
    landing_probes = []
    statements = []
    delta = f"{name}_batches_intermediate.int_cdc__row_history_delta"
    target = work / f"target-{name}-batches"
    with environment(f"{name}_raw_batches", f"{name}_batches", target):
        start_pipeline(cursor, dbt_vars(batch_vars, formats))
        for number, batch_files in enumerate(files):
            load_batch(cursor, batch_files, formats)
            log_offset = dbt_log_size()
            dbt_run("run", *MARTS, *dbt_vars(batch_vars, formats))
            snapshots.append(snapshot(cursor, f"{name}_batches"))
            appended.append(appended_tables(cursor, f"{name}_batches"))
            if number == 0:
                first_base_parts = fold_parts(target, "int_cdc__row_history_base")
            else:
                delta_parts.append(fold_parts(target, "int_cdc__row_history_delta"))
                history_parts.append(history_fold_parts(cursor, f"{name}_batches"))
                statement = executed_statement(target, "int_cdc__row_history_delta")
                delta_key_ranges.append(STORED_KEY_RANGE in statement)
                late_key_lookups.append(LATE_KEY_LOOKUP in statement)
                named_loads.append(
                    "loaded_at in (timestamp_micros(" in statement
                    and "loaded_at in (timestamp_micros("
                    in executed_statement(target, "int_cdc__row_versions")
                )
                statements.append(logged_statements(log_offset))
                landing_probes.append(landing_watermarks(statements[-1], f"{name}_raw_batches"))
            if number == stopped_after:
                for suffix, table in APPENDED + OVERWRITING_RECORDERS:
                    run(cursor, f"alter table {name}_batches_{suffix}.{table} {BLANK_RECORD}")
            if number == COMPACT_AFTER_BATCH:
                dbt_run("run", *MARTS, *dbt_vars(COMPACT, formats))  # nothing new, compacted
                compacted = snapshot(cursor, f"{name}_batches")
                appended.append(appended_tables(cursor, f"{name}_batches"))
                assert scalar(cursor, f"select count(*) from {delta}") == 0
                recorded = [base_row_counts(cursor, f"{name}_batches")]
                records = {
                    table: (
                        dict(run(cursor, f"show tblproperties {name}_batches_{suffix}.{table}")),
                        scalar(
                            cursor,
                            "select unix_micros(max(loaded_at))"
                            f" from {name}_batches_{suffix}.{table}",
                        ),
                    )
                    for suffix, table in APPENDED
                }
    return {
        "batch_snapshots": snapshots,
        "appended": appended,
        "compacted": compacted,
        "delta_rows": scalar(cursor, f"select count(*) from {delta}"),
        "recorded_base_rows": recorded,
        "delta_parts": delta_parts,
        "history_parts": history_parts,
        "delta_key_ranges": delta_key_ranges,
        "late_key_lookups": late_key_lookups,
        "named_loads": named_loads,
        "landing_probes": landing_probes,
        "statements": statements,
        "compacted_records": records,
        "first_base_parts": first_base_parts,
    }


def run_pipelines(cursor: Any, files: list[dict[str, Path]], work: Path) -> dict[str, Any]:
    """GEN_FORMATS: the batches (run_batches) and a run with nothing new after them
    (schema gen_batches), then all batches at once with --full-refresh (schema gen_full):
    what the batches give, the snapshots, what the last run (nothing new) recorded and the
    fold parts the full refresh's base was planned with."""
    name, formats = "gen", GEN_FORMATS
    batched = run_batches(cursor, files, work, name, formats)
    snapshots, recorded = batched["batch_snapshots"], batched["recorded_base_rows"]
    target = work / f"target-{name}-batches"
    with environment(f"{name}_raw_batches", f"{name}_batches", target):
        idle = dbt_run("run", *MARTS, *dbt_vars(DELTAS_ONLY, formats))  # nothing new
        snapshots.append(snapshot(cursor, f"{name}_batches"))
        recorded.append(base_row_counts(cursor, f"{name}_batches"))
        idle_messages = {r.node.name: r.message for r in idle.result}
        sightings = query(
            cursor,
            f"""
            select count(*) as sighting_rows,
                count(distinct sighting, table_key, coalesce(column_name, ''),
                    coalesce(column_types_id, 0)) as sighted_keys,
                count(distinct generation) as generations
            from {name}_batches_intermediate.int_cdc__table_sightings""",
        )[0]
        # The history stores an id of each version's column types; the view looks the map
        # up: each current row's must be its last change's, as the change log holds it.
        column_types = query(
            cursor,
            f"""
            select count_if(state.column_types is not null) as typed_rows,
                count_if(not (to_json(state.column_types) <=> to_json(changes.column_types)))
                    as mismatched_rows
            from {name}_batches.cdc_current_state as state
            inner join {name}_batches_intermediate.int_cdc__change_log as changes
                on state.last_event_id = changes.event_id""",
        )[0]
        totals = query(
            cursor,
            f"""
            select count(*) as total_rows, count(distinct generation) as generations
            from {name}_batches_intermediate.int_cdc__sync_progress_totals""",
        )[0]
        counted_since_base = versions_since_base(cursor, f"{name}_batches")
        kinds = recorded_kinds(cursor, f"{name}_batches")
        size_compaction = compact_by_size(cursor, name, formats)
    with environment(f"{name}_raw_full", f"{name}_full", work / f"target-{name}-full"):
        start_pipeline(cursor, dbt_vars({}, formats))
        for batch_files in files:
            load_batch(cursor, batch_files, formats)
        dbt_run("run", *MARTS, "--full-refresh", *dbt_vars({}, formats))
        full = snapshot(cursor, f"{name}_full")
        base_parts = fold_parts(work / f"target-{name}-full", "int_cdc__row_history_base")
    return batched | {
        "sightings": sightings,
        "column_types": column_types,
        "totals": totals,
        "idle_messages": idle_messages,
        "versions_since_base": counted_since_base,
        "recorded_kinds": kinds,
        "size_compaction": size_compaction,
        "full": full,
        "base_parts": base_parts,
    }


@pytest.fixture(scope="module")
def generated_stream(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The simulated source, its deliveries in batches, and the batches' files."""
    rng = random.Random(SEED)
    source = simulate(rng)
    batches = deliveries(source.messages, rng, BATCHES)
    work = tmp_path_factory.mktemp("generated")
    offsets: dict[str, int] = {}
    files = [write_batch(batch, work / f"batch-{n}", offsets) for n, batch in enumerate(batches)]
    return {"source": source, "messages": batches, "files": files, "work": work}


@pytest.fixture(scope="module")
def generated_pipelines(spark_server: Any, generated_stream: dict[str, Any]) -> dict[str, Any]:
    """The generated stream (GEN_FORMATS), batch by batch and as one full refresh."""
    with connect(spark_server.host, spark_server.port) as cursor:
        built = run_pipelines(cursor, generated_stream["files"], generated_stream["work"])
    return built | {"source": generated_stream["source"], "messages": generated_stream["messages"]}


@pytest.fixture(scope="module")
def plain_pipelines(spark_server: Any, generated_stream: dict[str, Any]) -> dict[str, Any]:
    """The DataWorks table of the same stream alone, batch by batch."""
    with connect(spark_server.host, spark_server.port) as cursor:
        batched = run_batches(
            cursor,
            generated_stream["files"],
            generated_stream["work"],
            "plain",
            PLAIN_FORMATS,
            DELTAS_ONLY | REWRITE_EACH_APPEND,
            stopped_after=COMPACT_AFTER_BATCH,
        )
        # As a delta built before it kept the count: macro history_compaction_due counts.
        delta = "plain_batches_intermediate.int_cdc__row_history_delta"
        run(cursor, f"alter table {delta} unset tblproperties ('cdc_lake.versions_since_base')")
        target = generated_stream["work"] / "target-plain-batches"
        with environment("plain_raw_batches", "plain_batches", target):
            uncounted = compact_by_size(cursor, "plain", PLAIN_FORMATS)
        return batched | {"uncounted_size_compaction": uncounted}


@pytest.fixture(scope="module")
def ordered_pipeline(spark_server: Any, generated_stream: dict[str, Any]) -> dict[str, Any]:
    """The DataWorks table of the same stream delivered in the source's order, once each, in
    BATCHES batches (an update's two halves in one batch), batch by batch: every run's new
    versions are newer than every version stored before them."""
    source: SourceDatabase = generated_stream["source"]
    messages = [message for message in source.messages if message.fmt in PLAIN_FORMATS]
    size = -(-len(messages) // BATCHES)
    batches: list[list[Message]] = [[]]
    for message in messages:
        if len(batches[-1]) >= size and message.second_half_of is None:
            batches.append([])
        batches[-1].append(message)
    work = generated_stream["work"]
    offsets: dict[str, int] = {}
    files = [write_batch(batch, work / f"ordered-{n}", offsets) for n, batch in enumerate(batches)]
    with connect(spark_server.host, spark_server.port) as cursor:
        return run_batches(cursor, files, work, "ordered", PLAIN_FORMATS)


def live_rows(rows: dict[int, dict[str, Any]]) -> dict[str, dict[str, str]]:
    """A simulated MySQL table's live rows as cdc_current_state shows them: by primary key
    (JSON), every value as text."""
    return {json.dumps([str(k)]): {c: str(v) for c, v in row.items()} for k, row in rows.items()}


def test_the_stream_mixes_every_case(generated_pipelines: dict[str, Any]) -> None:
    """The generator really produces what the equality test claims to cover."""
    values = [m.value for batch in generated_pipelines["messages"] for m in batch]
    ops = {json.loads(v).get("op") for v in values}
    assert {"r", "c", "u", "d", "t", "INSERT", "UPDATE", "DELETE"} <= ops
    assert len(values) > len(set(values)) > 2500  # duplicates delivered
    assert any("$unset" in v for v in values) and any('"replace"' in v for v in values)
    positions = [json.loads(v)["source"]["pos"] for v in values if '"connector"' in v]
    assert positions != sorted(positions)  # out of order
    # Updates sent as two messages, the first half first; some cut apart by a batch boundary,
    # and of those some change the key (the old key must end even so).
    halves: dict[tuple[int, int], tuple[int, dict[str, Any]]] = {}
    for number, batch in reversed(list(enumerate(generated_pipelines["messages"]))):
        for message in batch:
            pair = message.first_half_of or message.second_half_of
            if pair is not None:
                halves[pair, int(message.second_half_of is not None)] = (
                    number,
                    json.loads(message.value)["payload"],
                )
    pairs = {pair for pair, _ in halves}
    assert len(pairs) > 100
    assert all(halves[pair, 0][0] <= halves[pair, 1][0] for pair in pairs)
    cut = [pair for pair in pairs if halves[pair, 0][0] < halves[pair, 1][0]]
    moved = [
        pair
        for pair in cut
        if halves[pair, 0][1]["before"]["dataColumn"]["id"]
        != halves[pair, 1][1]["after"]["dataColumn"]["id"]
    ]
    assert len(cut) >= 2 and len(moved) >= 1


def test_batches_equal_one_full_refresh(generated_pipelines: dict[str, Any]) -> None:
    """Every batch's delta read the stored rows within the range of the keys it touched
    (macro new_history_versions), and the batches still give what one full refresh gives."""
    assert generated_pipelines["delta_key_ranges"]
    assert all(generated_pipelines["delta_key_ranges"])
    batched = generated_pipelines["batch_snapshots"][-1]
    full = generated_pipelines["full"]
    assert len(full["history"]) > 3000
    assert batched["state"] == full["state"]
    assert batched["history"] == full["history"]


def new_versions(rows: str, tmp_path: Path, cursor: Any, after: int = 10) -> dict[str, Any]:
    """What macro new_history_versions makes of versions (op, primary_key, is_partial,
    loaded_at as microseconds) given as SQL `values` rows, those loaded after `after` µs new:
    its key bounds evaluated by the server (None where it gives none). A version's
    ordering_key is its load time, a dot and its key's length."""
    jinja = (
        "{% set versions %}(select op, primary_key, is_partial,"
        " loaded_micros || '.' || coalesce(length(primary_key), 0) as ordering_key,"
        " timestamp_micros(loaded_micros) as loaded_at from values " + rows + " as"
        " versions(op, primary_key, is_partial, loaded_micros)){% endset %}"
        f"{{{{ tojson(new_history_versions(versions, 'timestamp_micros({after})')) }}}}"
    )
    found = json.loads(compiled_inline(jinja, tmp_path))
    for bound in ("low", "high"):
        if found[bound] is not None:
            found[bound] = scalar(cursor, f"select {found[bound]}")
    return found


def test_new_history_versions_holds_every_touched_key_and_kind(
    spark_server: Any, tmp_path: Path, cursor: Any
) -> None:
    """One statement answers the delta's questions. The key bounds are the lowest and highest
    key of the new versions only, truncates (no key) left out, exact whatever a key's
    characters (a key is message content: the SQL carries it as base64), and none when no new
    version has a key or a key is over 1,024 characters, so that the delta then reads every
    stored row. The condition names the new loads, and the newest of them is named; the
    truncates and partial changes counted are the new versions' only (macro
    history_delta_kinds adds what the base and the delta recorded of the older ones), and
    so are the lowest and highest ordering keys, of versions with a key (macro
    history_in_order)."""
    tricky = '["it\'s \u2713 ); drop"]'
    literal = "'" + tricky.replace("'", "\\'") + "'"
    found = new_versions(
        f"""('insert', '["b"]', false, 11), ('update', {literal}, false, 12),"""
        """ ('truncate', null, false, 12), ('delete', '["a"]', false, 12),"""
        """ ('insert', '["0"]', true, 10)""",
        tmp_path,
        cursor,
    )
    assert {key: found[key] for key in ("low", "high")} == {"low": '["a"]', "high": tricky}
    assert found["condition"].startswith(
        "loaded_at in (timestamp_micros(11), timestamp_micros(12), timestamp_micros(2534"
    )
    assert (found["count"], found["new_truncates"], found["new_partial_changes"]) == (4, 1, 0)
    assert (found["first_ordering_key"], found["through"]) == ("11.5", 12)
    assert found["last_ordering_key"] == max(f"12.{len(tricky)}", "12.5")  # as text
    only_truncate = new_versions("('truncate', null, false, 11)", tmp_path, cursor)
    assert (only_truncate["low"], only_truncate["high"]) == (None, None)
    assert (only_truncate["first_ordering_key"], only_truncate["last_ordering_key"]) == (None,) * 2
    assert (only_truncate["new_truncates"], only_truncate["new_partial_changes"]) == (1, 0)
    long_key = new_versions(
        "('update', repeat('k', 1025), false, 11), ('insert', 'a', false, 11)", tmp_path, cursor
    )
    assert (long_key["low"], long_key["high"]) == (None, None)
    assert long_key["new_truncates"] == 0
    exact = new_versions("('update', repeat('k', 1024), true, 11)", tmp_path, cursor)
    assert exact["low"] == "k" * 1024
    assert (exact["new_truncates"], exact["new_partial_changes"]) == (0, 1)
    nothing_new = new_versions("('insert', 'a', true, 10)", tmp_path, cursor)
    assert nothing_new["condition"] == "false" and nothing_new["count"] == 0
    assert nothing_new["through"] is None
    assert nothing_new["new_partial_changes"] == 0


LOADS = (
    "(select * from values (1, timestamp_micros({})), (2, timestamp_micros({})), (3, null)"
    " as loads(id, loaded_at))"
)


def loaded_after(after: int, tmp_path: Path, max_loads: int = 1000, loads: tuple = (5, 9)) -> str:
    """The condition macro loaded_after makes of the `LOADS` rows later than `after` µs."""
    relation = LOADS.format(*loads)
    return compiled_inline(
        f"{{{{ loaded_after('{relation}', 'timestamp_micros({after})', max_loads={max_loads}) }}}}",
        tmp_path,
    ).strip()


def generated_code(cursor: Any, condition: str) -> list[str]:
    """The Java Spark generates for a scan of the batch pipeline's `int_cdc__row_versions`
    filtered by `condition` (`explain codegen`, the numbered lines of its classes)."""
    plan = scalar(
        cursor,
        "explain codegen select event_id "
        f"from gen_batches_intermediate.int_cdc__row_versions where {condition}",
    )
    return [line for line in plan.splitlines() if line.startswith("/* ")]


def test_loaded_after_names_the_new_loads_in_code_that_does_not_change(
    generated_pipelines: dict[str, Any], tmp_path: Path, cursor: Any
) -> None:
    """The condition keeps exactly the rows loaded after the watermark (`false` when there are
    none, a comparison with the first of them over `max_loads` loads), and a query filtered by
    it compiles to the same Java whatever loads it names, as it did not when it compared with a
    literal."""
    assert loaded_after(9, tmp_path) == "false"
    kept = loaded_after(4, tmp_path)
    assert kept.startswith("loaded_at in (timestamp_micros(5), timestamp_micros(9), ")
    assert scalar(cursor, f"select collect_list(id) from {LOADS.format(5, 9)} where {kept}") == (
        "[1,2]"
    )
    assert loaded_after(5, tmp_path).startswith("loaded_at in (timestamp_micros(9), ")
    assert loaded_after(4, tmp_path, max_loads=1) == "loaded_at >= timestamp_micros(5)"
    one_load = generated_code(cursor, loaded_after(4, tmp_path, loads=(5, 5)))
    two_loads = generated_code(cursor, kept)
    assert one_load == two_loads and len(one_load) > 20
    assert generated_code(cursor, "loaded_at > timestamp_micros(4)") != generated_code(
        cursor, "loaded_at > timestamp_micros(5)"
    )
    # Every incremental run of the pipeline named its loads.
    assert all(generated_pipelines["named_loads"])


def test_staging_probes_its_landing_table_with_a_value(
    generated_pipelines: dict[str, Any],
) -> None:
    """Every incremental run's staging compared each landing table's `loaded_at` with a value
    (macro loaded_since_last_run, `partitioned`), by which Spark prunes the table's partitions,
    one per load, when it plans the probe. Compared with a subquery's value, it listed the
    files of every load ever landed before pruning them, each run (with a job of a task per
    load past 32 loads)."""
    probes = generated_pipelines["landing_probes"]
    assert probes
    for run_probes in probes:
        assert run_probes == dict.fromkeys(GEN_FORMATS, "timestamp_micros(")


def test_batches_equal_one_full_refresh_in_table_schemas(
    generated_pipelines: dict[str, Any],
) -> None:
    batched = generated_pipelines["batch_snapshots"][-1]
    full = generated_pipelines["full"]
    assert len(full["schemas"]) >= 10
    assert batched["schemas"] == full["schemas"]


def test_batches_equal_one_full_refresh_in_sync_progress(
    generated_pipelines: dict[str, Any],
) -> None:
    """The totals each run adds its new loads to come to what one count of every load gives
    (load times and lag aside: the two pipelines load at different times)."""
    batched = generated_pipelines["batch_snapshots"][-1]
    full = generated_pipelines["full"]
    assert len(full["progress"]) >= 2
    assert batched["progress"] == full["progress"]


def test_table_sightings_keep_one_row_per_table_and_column(
    generated_pipelines: dict[str, Any],
) -> None:
    """However many runs folded changes into them, the sightings are one generation of one
    row per (sighting, table, column): cdc_table_schemas reads what the schemas are, not a
    set of rows per run."""
    sightings = generated_pipelines["sightings"]
    assert sightings["generations"] == 1
    assert sightings["sighting_rows"] == sightings["sighted_keys"] >= 4


def test_the_history_shows_each_versions_column_types(
    generated_pipelines: dict[str, Any],
) -> None:
    """The history stores an id of a version's column types (macro column_types_id) and
    cdc_row_history looks the map up in the table sightings: every current row shows the
    map its last change sent, and the batches' maps equal the full refresh's (the
    snapshots compare them)."""
    column_types = generated_pipelines["column_types"]
    assert column_types["typed_rows"] > 0
    assert column_types["mismatched_rows"] == 0


def test_sync_progress_keeps_one_row_per_topic(generated_pipelines: dict[str, Any]) -> None:
    """The totals are one generation of a row per source and topic, not a row per run."""
    totals = generated_pipelines["totals"]
    assert totals["generations"] == 1
    assert totals["total_rows"] == len(generated_pipelines["full"]["progress"])


def test_a_run_with_nothing_new_changes_no_row(generated_pipelines: dict[str, Any]) -> None:
    *_, last_batch, rerun = generated_pipelines["batch_snapshots"]
    assert rerun == last_batch


def test_appended_models_take_their_new_loads_from_the_records_of_the_loads_read(
    generated_pipelines: dict[str, Any],
) -> None:
    """On the first incremental run, which finds no record of the loads read, staging asks
    for the newest load it holds and the models after it probe the tables they read; once
    each model that names the loads it reads (macro select_new_rows: the appended tables,
    and the table sightings and sync totals, which overwrite a generation) has recorded
    them (macro recorded_loads; the format that sends nothing from what it holds), neither
    runs, across a compaction that rewrote the appended tables (macro
    loaded_since_last_run). (The schema changes, which get rows only from a load with a DDL
    statement, probe until their record reaches back to staging's lists.) Each record is
    blanked just before its table's insert and stored after it."""
    readers = {
        "int_cdc__row_versions",
        "int_cdc__message_accounting",
        "int_cdc__table_sightings",
        "int_cdc__sync_progress_totals",
    }
    staging = {"stg_debezium__json", "stg_huawei_drs__mongo", "stg_dataworks__json"}
    first, last = generated_pipelines["statements"][0], generated_pipelines["statements"][-1]
    assert readers | staging <= load_probes(first)
    assert not load_probes(last) & (readers | staging | set(IDLE_STAGING))
    for reader in ("int_cdc__row_versions", "int_cdc__sync_progress_totals"):
        statements = [statement for model, statement in last if model == reader]
        order = [
            next(i for i, statement in enumerate(statements) if part in statement)
            for part in (BLANK_RECORD, "insert ", "'cdc_lake.loads_read_through' = '1")
        ]
        assert order == sorted(order), statements


def test_a_run_stopped_before_its_record_sends_the_next_to_the_tables(
    plain_pipelines: dict[str, Any],
) -> None:
    """After a run stopped between its inserts and their records (blanked records), the next
    run with nothing new records what each appended table holds (macro
    held_loads_properties): its newest load; the run after it reads its new loads from the
    records again, and the batches still give what the full refresh gives (test
    test_a_stream_without_truncates_or_partial_changes_folds_the_same)."""
    for table, (properties, newest) in plain_pipelines["compacted_records"].items():
        assert properties.get("cdc_lake.loads_read_through") == str(newest), table
        assert properties.get("cdc_lake.loads_read") == "", table
    last = plain_pipelines["statements"][-1]
    assert not load_probes(last) & {table for _, table in APPENDED}


def test_a_run_with_nothing_new_runs_no_insert(generated_pipelines: dict[str, Any]) -> None:
    """With nothing new and no compaction due, the history's base and delta, staging (of a
    format with loads and of one without) and the row versions write nothing (macros
    writes_nothing, select_new_rows), and the incremental materialization then runs no
    statement for them: not an insert Spark plans only to write no rows, nor a temporary
    view (macro materialization_incremental_spark)."""
    messages = generated_pipelines["idle_messages"]
    idle = IDLE_MODELS + IDLE_STAGING
    assert {model: messages[model] for model in idle} == dict.fromkeys(idle, "OK (nothing new)")


def test_a_run_with_nothing_new_leaves_the_table_schemas_as_they_are(
    generated_pipelines: dict[str, Any],
) -> None:
    """int_cdc__table_columns names a build signature its table was built with (macro
    with_build_signature): the table materialization runs no statement for it, nor the view
    materialization for cdc_table_schemas."""
    messages = generated_pipelines["idle_messages"]
    assert messages["int_cdc__table_columns"] == messages["cdc_table_schemas"] == "OK (unchanged)"


def test_compaction_changes_no_row_and_later_deltas_build_on_it(
    generated_pipelines: dict[str, Any],
) -> None:
    """The forced compaction after a batch folds the delta into the base (the delta is empty
    after it) without changing a row; the batches after it write deltas again, and still end
    equal to the full refresh (test above)."""
    before = generated_pipelines["batch_snapshots"][COMPACT_AFTER_BATCH]
    assert generated_pipelines["compacted"] == before
    assert generated_pipelines["delta_rows"] > 0


def test_a_forced_compaction_rewrites_each_appended_table_as_a_few_files(
    generated_pipelines: dict[str, Any],
) -> None:
    """Var cdc_lake_compact also rewrites the appended tables (macro compact_appended_table),
    though the run appends nothing: the same rows in new files, no more of them (at most one
    per shuffle partition), the count of the runs that appended since reset. Before it, the
    first batch created each table (no count) and the second appended to it (one); the
    batch after it counts one again, and still ends equal to the full refresh (test above)."""
    after_batches = generated_pipelines["appended"]
    before, compacted = after_batches[COMPACT_AFTER_BATCH], after_batches[COMPACT_AFTER_BATCH + 1]
    for table, (rows, files, appends, counted) in before.items():
        assert (appends, counted) == ("1", None), table
        assert compacted[table][0] == rows, table
        assert not compacted[table][1] & files, table
        assert len(compacted[table][1]) <= min(len(files), 8), table
        assert compacted[table][2:] == (None, str(rows)), table
    assert all(appends == "1" for _, _, appends, _ in after_batches[-1].values())


def test_an_appended_table_is_rewritten_after_so_many_appending_runs(
    plain_pipelines: dict[str, Any],
) -> None:
    """With var cdc_lake_compaction_appends 1 each DataWorks batch after the first (which
    creates the tables) rewrites each appended table as it appends: none of the files before
    it is left, and the count starts again rather than reading one; the stream still folds
    to what the full refresh gives (test below)."""
    states = plain_pipelines["appended"]
    for state in states:
        assert all(appends is None for _, _, appends, _ in state.values()), state
    for before, after in pairwise(states):
        for table, (rows, files, _, counted) in after.items():
            assert files and not files & before[table][1], table
            assert rows >= before[table][0], table
            assert counted == str(rows), table


def test_the_appends_between_compactions_grow_with_the_square_root_of_the_rows(
    spark_server: Any, tmp_path: Path
) -> None:
    """Var cdc_lake_compaction_appends (64) for a table of up to two million rows, then times
    the square root of its rows over two million, rounded up (macro
    appends_between_compactions): a rewrite costs about its rows, the files between rewrites
    cost every read."""
    rows = [0, 1_500_000, 2_000_000, 8_000_000, 20_000_000, 200_000_000]
    jinja = ",".join(f"{{{{ appends_between_compactions({n}) }}}}" for n in rows)
    assert compiled_inline(jinja, tmp_path).split(",") == ["64", "64", "64", "128", "203", "640"]


def test_the_base_keeps_its_row_count_for_the_compaction_check(
    generated_pipelines: dict[str, Any],
) -> None:
    """The compaction check reads the base's rows from the metastore, not by counting: the
    count the base recorded when it was rebuilt, and still right after runs that wrote only
    deltas (the base unchanged)."""
    after_compaction, after_last_run = generated_pipelines["recorded_base_rows"]
    assert after_compaction[1] > 0
    assert after_compaction[0] == after_compaction[1]
    assert after_last_run == after_compaction


def test_the_delta_keeps_the_count_of_versions_since_the_base(
    generated_pipelines: dict[str, Any],
) -> None:
    """The compaction check reads the versions loaded since the base from the delta's table
    properties, not by counting: after the batches (and a run with nothing new) they are
    the count a query gives, against the base's generation; after a compaction they start
    again from none."""
    recorded, counted = generated_pipelines["versions_since_base"]
    assert counted[0] > 0
    assert recorded == counted
    recorded, counted = generated_pipelines["size_compaction"]["versions_since_base"]
    assert recorded == counted == (0, counted[1])


def test_the_history_keeps_which_kinds_of_version_it_holds(
    generated_pipelines: dict[str, Any],
) -> None:
    """Each delta is planned with the parts of the fold its versions call for, old versions
    too, though no run after the first counts every version: the base records whether the
    versions it folded hold a truncate or a partial change, and the delta how many of each
    were loaded since (both as counted); the stream has both, in its first batch and after
    the compaction."""
    assert generated_pipelines["delta_parts"] == generated_pipelines["history_parts"]
    assert generated_pipelines["history_parts"][-1] == set(FOLD_PARTS)
    kinds = generated_pipelines["recorded_kinds"]
    assert all(recorded == counted for recorded, counted in kinds.values()), kinds
    assert kinds["base_truncates"][1] == kinds["base_partial_changes"][1] == "true"
    assert int(kinds["truncates_since_base"][1]) > 0
    assert int(kinds["partial_changes_since_base"][1]) > 0


# Its pipelines come by getfixturevalue, which conftest's marking by fixture names cannot see.
@pytest.mark.spark
@pytest.mark.parametrize(
    ("pipelines", "compaction"),
    [("generated_pipelines", "size_compaction"), ("plain_pipelines", "uncounted_size_compaction")],
)
def test_the_base_compacts_when_the_versions_since_outgrow_the_ratio(
    pipelines: str, compaction: str, request: pytest.FixtureRequest
) -> None:
    """With var cdc_lake_compaction_ratio 0 any version since the base makes a compaction
    due: counted by the delta's post-hook, or, where the delta kept no count (as one built
    before it did), by a query. The run folds the delta into the base and changes no row."""
    compacted = request.getfixturevalue(pipelines)[compaction]
    assert compacted["after"] == compacted["before"]
    assert compacted["delta_rows"] == 0
    recorded, counted = compacted["versions_since_base"]
    assert recorded == counted == (0, counted[1])


def test_current_state_is_what_the_source_holds(
    generated_pipelines: dict[str, Any], cursor: Any
) -> None:
    source: SourceDatabase = generated_pipelines["source"]
    rows = query(
        cursor,
        f"""
        select table_key, primary_key, is_deleted, to_json(row_data) as row_data
        from gen_full.cdc_current_state
        where table_key in ('{ITEMS_TABLE_KEY}', '{DOCS_TABLE_KEY}', '{PRICES_TABLE_KEY}')""",
    )
    live_items = live_rows(source.items)
    got_items = {
        r["primary_key"]: json.loads(r["row_data"])
        for r in rows
        if r["table_key"] == ITEMS_TABLE_KEY and not r["is_deleted"]
    }
    assert got_items == live_items
    all_items = {r["primary_key"] for r in rows if r["table_key"] == ITEMS_TABLE_KEY}
    assert all_items == {json.dumps([str(k)]) for k in source.items_seen}
    live_docs = {json.dumps([k]): doc for k, doc in source.docs.items()}
    got_docs = {
        r["primary_key"]: {c: v for c, v in json.loads(r["row_data"]).items() if c != "_document"}
        for r in rows
        if r["table_key"] == DOCS_TABLE_KEY and not r["is_deleted"]
    }
    assert got_docs == live_docs
    live_prices = live_rows(source.prices)
    got_prices = {
        r["primary_key"]: json.loads(r["row_data"])
        for r in rows
        if r["table_key"] == PRICES_TABLE_KEY and not r["is_deleted"]
    }
    assert got_prices == live_prices
    assert {r["primary_key"] for r in rows if r["table_key"] == DOCS_TABLE_KEY} == {
        json.dumps([k]) for k in source.docs_seen
    }


def test_a_stream_without_truncates_or_partial_changes_folds_the_same(
    plain_pipelines: dict[str, Any], generated_pipelines: dict[str, Any], cursor: Any
) -> None:
    """The fold planned without its truncate and partial-change parts (a stream that has
    neither) gives, batch by batch across a compaction, what the full refresh of the whole
    stream, planned with both parts, gives for the same table, and the table's rows are what
    the source holds."""
    assert plain_pipelines["first_base_parts"] == set()
    assert plain_pipelines["delta_parts"] and all(
        parts == set() for parts in plain_pipelines["delta_parts"]
    )
    assert generated_pipelines["base_parts"] == set(FOLD_PARTS)
    batched = plain_pipelines["batch_snapshots"][-1]
    full = {
        part: [row for row in rows if row[0] in (PRICES_TABLE_KEY, *PLAIN_FORMATS)]
        for part, rows in generated_pipelines["full"].items()
    }
    assert all(full.values()), full
    assert batched == full
    assert plain_pipelines["compacted"] == plain_pipelines["batch_snapshots"][COMPACT_AFTER_BATCH]
    assert plain_pipelines["delta_rows"] > 0
    source: SourceDatabase = generated_pipelines["source"]
    rows = query(
        cursor,
        """
        select table_key, primary_key, to_json(row_data) as row_data
        from plain_batches.cdc_current_state
        where not is_deleted""",
    )
    assert {row["table_key"] for row in rows} == {PRICES_TABLE_KEY}
    live_prices = live_rows(source.prices)
    assert {row["primary_key"]: json.loads(row["row_data"]) for row in rows} == live_prices


def test_a_stream_in_order_folds_without_looking_for_late_keys(
    ordered_pipeline: dict[str, Any],
    plain_pipelines: dict[str, Any],
    generated_pipelines: dict[str, Any],
) -> None:
    """A stream whose every run brings only versions newer than those stored (the DataWorks
    table in the source's order) plans each delta without the late-key look-up, across a
    compaction (macro history_in_order: the records of the newest version stored), and
    still ends as the full refresh of the whole stream. The same table delivered out of
    order looks for late keys, and a stream with truncates always does."""
    assert ordered_pipeline["late_key_lookups"] == [False] * (BATCHES - 1)
    assert any(plain_pipelines["late_key_lookups"]), plain_pipelines["late_key_lookups"]
    assert all(generated_pipelines["late_key_lookups"])
    batched = ordered_pipeline["batch_snapshots"][-1]
    for part in ("state", "history"):
        full = [row for row in generated_pipelines["full"][part] if row[0] == PRICES_TABLE_KEY]
        assert full
        assert batched[part] == full, part


def test_a_view_is_replaced_only_when_its_query_changes(spark_server: Any, tmp_path: Path) -> None:
    """Replacing a view makes Spark analyse its query again (about 0.2 s) and a run has nine:
    one whose stored query is its model's SQL is left as it is, one whose SQL changed (here
    the union of the staging tables, when the formats change) is replaced, and
    --full-refresh replaces every one."""
    views = ("int_cdc__staged_events", "int_cdc__change_log")

    def run_views(formats: list[str], *args: str) -> dict[str, str]:
        result = dbt_run("run", "--select", "+int_cdc__change_log", *args, *dbt_vars({}, formats))
        return {r.node.name: r.message for r in result.result if r.node.name in views}

    def created_times(cursor: Any) -> dict[str, str]:
        return {
            view: next(
                row["data_type"]
                for row in query(cursor, f"describe table extended views_intermediate.{view}")
                if row["col_name"] == "Created Time"
            )
            for view in views
        }

    replaced = dict.fromkeys(views, "OK")
    kept = dict.fromkeys(views, "OK (unchanged)")
    with (
        connect(spark_server.host, spark_server.port) as cursor,
        environment("views_raw", "views", tmp_path / "target"),
    ):
        start_pipeline(cursor, dbt_vars({}, ["canal_json"]))
        assert run_views(["canal_json"]) == replaced
        created = created_times(cursor)
        assert run_views(["canal_json"]) == kept
        assert created_times(cursor) == created
        # A format added to the list has its seed loaded first (`dbt build` does it).
        dbt_run("seed", *dbt_vars({}, ["canal_json", "maxwell_json"]))
        assert run_views(["canal_json", "maxwell_json"]) == replaced | {
            "int_cdc__change_log": "OK (unchanged)"
        }
        assert run_views(["canal_json", "maxwell_json"], "--full-refresh") == replaced
        assert scalar(cursor, "select count(*) from views_intermediate.int_cdc__change_log") == 0


def test_an_incremental_run_fails_on_a_column_the_model_or_its_table_lacks(
    spark_server: Any, tmp_path: Path
) -> None:
    """The incremental insert matches the model's columns to its table's by name, and the
    server refuses a column either side lacks (dbt's own on_schema_change check is off): a
    changed column list fails the run, never writes NULLs or drops a column. Each run gets a
    new change to insert (a run with nothing new runs no insert, macro select_new_rows)."""
    select = ["--select", "+int_cdc__row_versions", *dbt_vars({}, PLAIN_FORMATS)]
    table = "columns_intermediate.int_cdc__row_versions"
    source = SourceDatabase(random.Random(SEED))
    offsets: dict[str, int] = {}

    def load_a_new_change(cursor: Any) -> None:
        """A new price row, as a DataWorks message in a file of its own."""
        source.insert_price()
        folder = tmp_path / f"change-{len(source.messages)}"
        load_batch(cursor, write_batch(source.messages[-1:], folder, offsets), PLAIN_FORMATS)

    with (
        connect(spark_server.host, spark_server.port) as cursor,
        environment("columns_raw", "columns", tmp_path / "target"),
    ):
        start_pipeline(cursor, dbt_vars({}, PLAIN_FORMATS))
        load_a_new_change(cursor)
        dbt_run("run", *select)
        load_a_new_change(cursor)
        dbt_run("run", *select)  # incremental: the columns agree
        run(cursor, f"alter table {table} add columns (added_later string)")
        load_a_new_change(cursor)
        result = run_dbt("run", *select)
        assert not result.success
        assert "CANNOT_FIND_DATA" in str([r.message for r in result.result])
        dbt_run("run", "--full-refresh", *select)
        # A parquet table cannot drop a column: the table again without one.
        narrow = f"{table}_narrow"
        run(
            cursor,
            f"create table {narrow} using parquet as select * except (is_partial) from {table}",
        )
        run(cursor, f"drop table {table}")
        run(cursor, f"alter table {narrow} rename to {table}")
        load_a_new_change(cursor)
        result = run_dbt("run", *select)
        assert not result.success
        assert "TOO_MANY_DATA_COLUMNS" in str([r.message for r in result.result])


def test_staging_finds_a_later_delivery_among_the_held_rows_of_its_times(
    spark_server: Any, tmp_path: Path
) -> None:
    """A Canal event's id hashes its message, which fixes its `source_ts`: an incremental run
    looks its event ids up only among the held rows of its range of `source_ts` or without
    one (macro probe_new_messages), and still finds every earlier delivery: of a message
    inside the range, of one without `es`, of one whose `es` is sent twice (the last
    counts, for the probe as for the staging), and every row of a message of two rows. A
    run none of whose messages was staged before (the probe looks their first rows up)
    leaves the look-up out of its query."""
    select = ["--select", "stg_canal__json", *dbt_vars({}, ["canal_json"])]
    model = "redelivery_staging.stg_canal__json"

    def message(number: int, es: str) -> str:
        return (
            f'{{"data":[{{"id":"{number}","v":"x"}}],"database":"db","table":"t",'
            f'"pkNames":["id"],{es}"ts":{number}001,"id":{number},"isDdl":false,"type":"INSERT"}}'
        )

    inside, no_es = message(1, '"es":5000,'), message(2, "")
    twice, new = message(3, '"es":100,"es":7000,'), message(4, '"es":9000,')
    early, later = message(5, '"es":1000,'), message(7, '"es":9500,')
    two_rows = message(6, '"es":6000,').replace('"v":"x"}', '"v":"x"},{"id":"60","v":"y"}')

    def land_and_run(cursor: Any, name: str, lines: list[str]) -> None:
        path = tmp_path / f"{name}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        load_files(cursor, "canal_json", [path])
        dbt_run("run", *select)

    with (
        connect(spark_server.host, spark_server.port) as cursor,
        environment("redelivery_raw", "redelivery", tmp_path / "target"),
    ):
        start_pipeline(cursor, dbt_vars({}, ["canal_json"]))
        land_and_run(cursor, "first", [early, inside, no_es, twice, two_rows])
        land_and_run(cursor, "second", [new, inside, no_es, twice])
        executed = executed_statement(tmp_path / "target", "staging/canal/stg_canal__json")
        assert (
            "held.source_ts between timestamp_micros(5000000) and timestamp_micros(9000000)"
            " or held.source_ts is null" in executed
        )
        land_and_run(cursor, "third", [later])
        assert " as held" not in executed_statement(
            tmp_path / "target", "staging/canal/stg_canal__json"
        )
        land_and_run(cursor, "fourth", [later.replace('"es":9500', '"es":9600'), two_rows])
        assert " as held" in executed_statement(
            tmp_path / "target", "staging/canal/stg_canal__json"
        )
        deliveries = query(
            cursor,
            f"""select event_sequence as message_id, cast(source_ts as string) as source_ts,
                    is_first_delivery
                from {model} order by loaded_at, source_position""",
        )
    assert [(row["message_id"], row["is_first_delivery"]) for row in deliveries] == [
        ("5", True), ("1", True), ("2", True), ("3", True), ("6", True), ("6", True),
        ("4", True), ("1", False), ("2", False), ("3", False),
        ("7", True),
        ("7", True), ("6", False), ("6", False),
    ]  # fmt: skip
    assert {row["message_id"]: row["source_ts"] for row in deliveries}["3"].endswith("00:00:07")
