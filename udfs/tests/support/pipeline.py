"""The pipeline tests' helpers: queries over the session's server, and dbt run against it
in-process (with each invocation's saved parse put back first)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from cdc_lake.client import run
from support.project import PROJECT_ROOT


def query(cursor: Any, statement: str) -> list[dict[str, Any]]:
    """Rows of a query as dicts keyed by column name."""
    rows = run(cursor, statement)
    names = [column[0].split(".")[-1] for column in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in rows]


def scalar(cursor: Any, statement: str) -> Any:
    """The one value a query returns."""
    return run(cursor, statement)[0][0]


def decode_json_columns(rows: list[dict[str, Any]], *columns: str) -> list[dict[str, Any]]:
    """Thrift returns maps and arrays as JSON text; compare them as Python values."""
    for row in rows:
        for column in columns:
            if row[column] is not None:
                row[column] = json.loads(row[column])
    return rows


CURRENT_STATE = "cdc_lake.cdc_current_state"


def current_state(cursor: Any, row_filter: str) -> list[dict[str, Any]]:
    """The current-state rows where `row_filter` holds, in (table, key) order, as `state_row`
    writes them (keys and rows decoded)."""
    rows = query(
        cursor,
        f"""
        select table_key, primary_key, is_deleted, last_op, to_json(row_data) as row_data
        from {CURRENT_STATE}
        where {row_filter}
        order by table_key, primary_key""",
    )
    return decode_json_columns(rows, "primary_key", "row_data")


def state_row(
    table_key: str, key: list | None, is_deleted: bool, last_op: str, row: dict | None
) -> dict[str, Any]:
    """An expected row of `current_state`."""
    return {
        "table_key": table_key,
        "primary_key": key,
        "is_deleted": is_deleted,
        "last_op": last_op,
        "row_data": row,
    }


def format_current_state(
    cursor: Any, source_formats: tuple[str, ...], table_filter: str
) -> list[dict[str, Any]]:
    """The current-state rows last changed by these formats that match `table_filter`: the
    state a format's expectations are written for."""
    formats = ", ".join(f"'{source_format}'" for source_format in source_formats)
    return current_state(cursor, f"last_source_format in ({formats}) and ({table_filter})")


def format_live_rows(
    cursor: Any, source_formats: tuple[str, ...], table_key: str
) -> list[dict[str, Any]]:
    """The live rows of one table, by their `id` (`ID`; the public sets' key), then text."""
    rows = format_current_state(
        cursor, source_formats, f"table_key = '{table_key}' and not is_deleted"
    )
    return sorted(
        (row["row_data"] for row in rows),
        key=lambda data: (int(data.get("id", data.get("ID", 0))), json.dumps(data)),
    )


def change_log_rows(
    cursor: Any,
    row_filter: str,
    columns: str,
    json_columns: tuple[str, ...] = (),
    order_by: str = "ordering_key",
) -> list[dict[str, Any]]:
    """The change-log rows where `row_filter` holds, ordered by `order_by`: the change, its key
    and images (decoded), and the caller's `columns` (SQL select items; those named in
    `json_columns` are selected as JSON and decoded)."""
    rows = query(
        cursor,
        f"""
        select op, source_op, to_json(primary_key_columns) as primary_key_columns,
            primary_key, previous_primary_key, to_json(before_row) as before_row,
            to_json(after_row) as after_row, {columns}
        from cdc_lake_intermediate.int_cdc__change_log
        where {row_filter}
        order by {order_by}""",
    )
    return decode_json_columns(
        rows,
        "primary_key_columns",
        "primary_key",
        "previous_primary_key",
        "before_row",
        "after_row",
        *json_columns,
    )


def format_change_log(
    cursor: Any,
    source_formats: tuple[str, ...],
    table_key: str,
    columns: str,
    json_columns: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """One table's changes from these formats in ordering_key order (the order every later
    model applies), with the format's own `columns` (see `change_log_rows`)."""
    formats = ", ".join(f"'{source_format}'" for source_format in source_formats)
    return change_log_rows(
        cursor,
        f"source_format in ({formats}) and table_key = '{table_key}'",
        columns,
        json_columns,
    )


def format_rejections(
    cursor: Any, source_format: str, file_filter: str = "true"
) -> list[dict[str, Any]]:
    """The rejected messages of one format whose `source_file` matches `file_filter`, in
    load order: each with its reason, its message as sent and its file."""
    return query(
        cursor,
        f"""
        select rejection_reason, raw_value, source_file
        from cdc_lake_intermediate.int_cdc__rejected_messages
        where source_format = '{source_format}' and ({file_filter})
        order by source_file, source_position""",
    )


def assert_nodes_built(pipeline_build: Any, words: tuple[str, ...], *required: str) -> None:
    """The session build ran each `required` node, and every node whose name has one of
    `words`, successfully: a format's check covers its own nodes, other formats' are theirs."""
    assert pipeline_build.result is not None, pipeline_build.exception
    by_name = {result.node.name: result for result in pipeline_build.result.results}
    for name in required:
        assert by_name[name].status in ("success", "pass"), (name, by_name[name].status)
    failing = {
        name: result.status
        for name, result in by_name.items()
        if any(word in name for word in words) and result.status not in ("success", "pass")
    }
    assert failing == {}


def dbt_target_path() -> Path:
    """Where this session's dbt writes manifest.json, catalog.json and compiled SQL
    (DBT_TARGET_PATH, which the session sets; else dbt's own default)."""
    return Path(os.environ.get("DBT_TARGET_PATH", PROJECT_ROOT / "target"))


# dbt parses the whole project again (5-6 s) when its target folder holds no saved parse
# made with the same vars, profile and project env vars: a session's tests invoke it with
# folders of their own and alternating --vars, forty-odd full parses. The last parse made
# with the same inputs is put in place first; dbt still checks it and parses again if
# anything it depends on differs.
PARSE_FILE = "partial_parse.msgpack"
saved_parses: dict[str, bytes] = {}


def parse_inputs(args: tuple[str, ...]) -> str:
    """What a saved parse is good for: the invocation's --vars and the CDC_LAKE_* settings."""
    cli_vars = args[args.index("--vars") + 1] if "--vars" in args else ""  # YAML, as given
    settings = sorted((k, v) for k, v in os.environ.items() if k.startswith("CDC_LAKE_"))
    return json.dumps([cli_vars, settings])


def dbt_target(args: tuple[str, ...]) -> Path:
    """The target folder of an invocation: its --target-path, else DBT_TARGET_PATH."""
    if "--target-path" in args:
        return Path(args[args.index("--target-path") + 1])
    return dbt_target_path()


# The project, its profiles and the session's target, for every dbt invocation of the tests.
PROJECT_ARGS = (
    *("--project-dir", str(PROJECT_ROOT)),
    *("--profiles-dir", str(PROJECT_ROOT / "profiles")),
    *("--target", "local"),
)


def run_dbt(*args: str) -> Any:
    """Invoke dbt in-process against the session's server; returns dbt's result object."""
    from dbt.cli.main import dbtRunner

    inputs = parse_inputs(args)
    parse_file = dbt_target(args) / PARSE_FILE
    if inputs in saved_parses:
        parse_file.parent.mkdir(parents=True, exist_ok=True)
        parse_file.write_bytes(saved_parses[inputs])
    result = dbtRunner().invoke([*args, *PROJECT_ARGS])
    if parse_file.exists():
        saved_parses[inputs] = parse_file.read_bytes()
    return result


def compiled_inline(sql: str, target_path: Path) -> str:
    """SQL with Jinja, compiled by dbt while it executes (so macros may run queries)."""
    # A target folder of the test's own keeps the session's dbt artifacts as they were built.
    result = run_dbt("compile", "--inline", sql, "--target-path", str(target_path))
    assert result.success, result.exception
    return result.result.results[0].node.compiled_code


def staged_with_vars(model: str, project_vars: dict[str, Any], target_path: Path) -> str:
    """The SQL of a staging model as it stages every landed message with `project_vars`:
    compiled as a full refresh into a folder of the caller's own (so the session's dbt
    artifacts stay as built), to be queried without writing anything."""
    result = run_dbt(
        *("compile", "--full-refresh", "--select", model),
        *("--vars", json.dumps(project_vars), "--target-path", str(target_path)),
    )
    assert result.success, result.exception
    [compiled] = target_path.glob(f"compiled/**/{model}.sql")
    return compiled.read_text()


def keyed_changes(
    cursor: Any, model: str, table_key: str, project_vars: dict[str, Any], target_path: Path
) -> list[dict[str, Any]]:
    """The key of each change of one table as a staging model stages it with `project_vars`:
    op, primary_key_columns (JSON), primary_key, previous_primary_key, in order."""
    return query(
        cursor,
        f"""
        select op, to_json(primary_key_columns) as primary_key_columns, primary_key,
            previous_primary_key
        from ({staged_with_vars(model, project_vars, target_path)}) as staged
        where table_key = '{table_key}' and event_kind = 'change'
        order by ordering_key""",
    )


def node_errors(result: Any) -> list[str]:
    """'name: message' of every node dbt could not run (a data test that finds rows is no error)."""
    if result.result is None:
        return [f"dbt: {result.exception}"]
    return [
        f"{outcome.node.name}: {outcome.message}"
        for outcome in result.result.results
        if outcome.status == "error"
    ]
