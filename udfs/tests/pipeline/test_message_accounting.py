"""Reconciliation: every landed message is accounted for exactly once.

Over every bundled sample and fixture (one `dbt build`), `int_cdc__message_accounting` has one
row per landing row loaded before the build, none unaccounted, and its row counts add up to
the intermediate models.
Then the model's own compiled SQL is run again with one of its inputs made deliberately
wrong (a change no delivery keeps, a change two deliveries keep, a schema change doubled, a
message's staged rows dropped), to show that it flags exactly the damaged messages and nothing
else.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from support.pipeline import dbt_target_path, query, run_dbt, scalar

from cdc_lake.client import run
from cdc_lake.formats import FORMATS, landing_table

pytestmark = pytest.mark.spark

INTERMEDIATE = "cdc_lake_intermediate"
ACCOUNTING = f"{INTERMEDIATE}.int_cdc__message_accounting"
MESSAGE = ("source_format", "source_file", "source_position", "loaded_at")
# Other test modules land more files after the session's one build: only messages loaded by
# the time of the build are the build's to account for.
BUILT = f"loaded_at <= (select max(loaded_at) from {ACCOUNTING})"


def test_build_checks_the_accounting(pipeline_build: Any) -> None:
    statuses = {result.node.name: result.status for result in pipeline_build.result.results}
    assert statuses["int_cdc__message_accounting"] == "success"
    assert statuses["assert_every_landed_message_is_accounted_for"] == "pass"


def test_one_row_per_landed_message_and_none_unaccounted(pipeline_build: Any, cursor: Any) -> None:
    landed = {
        fmt: scalar(cursor, f"select count(*) from {landing_table(fmt)} where {BUILT}")
        for fmt in FORMATS
    }
    accounted = {
        row["source_format"]: row["messages"]
        for row in query(
            cursor,
            f"select source_format, count(*) as messages from {ACCOUNTING} group by source_format",
        )
    }
    # Every format has bundled samples, so every landing table is in the model's list.
    assert all(count > 0 for count in landed.values()), landed
    assert accounted == landed
    unaccounted = query(cursor, f"select * from {ACCOUNTING} where is_unaccounted")
    assert unaccounted == []


def test_row_counts_add_up_to_the_models(pipeline_build: Any, cursor: Any) -> None:
    totals = query(
        cursor,
        f"""
        select
            sum(change_rows) as change_rows,
            sum(heartbeat_rows) as heartbeat_rows,
            sum(schema_change_rows) as schema_change_rows,
            sum(transaction_rows) as transaction_rows,
            sum(tombstone_rows) as tombstone_rows,
            sum(logical_message_rows) as logical_message_rows,
            sum(rejected_rows) as rejected_rows,
            sum(update_half_rows) as update_half_rows,
            sum(duplicate_rows) as duplicate_rows,
            sum(staged_rows) as staged_rows
        from {ACCOUNTING}
        """,
    )[0]

    def count(table: str, where: str = "true") -> int:
        return scalar(cursor, f"select count(*) from {INTERMEDIATE}.{table} where {where}")

    truncates = count("int_cdc__change_log", "op = 'truncate'")
    assert totals["change_rows"] == count("int_cdc__change_log")
    assert totals["heartbeat_rows"] == count("int_cdc__heartbeats")
    # A truncate is a change row, and a row of the schema changes too.
    assert totals["schema_change_rows"] + truncates == count("int_cdc__schema_changes")
    assert totals["transaction_rows"] == count("int_cdc__transaction_markers")
    assert totals["rejected_rows"] == count("int_cdc__rejected_messages")
    assert totals["tombstone_rows"] == count("int_cdc__staged_events", "event_kind = 'tombstone'")
    assert totals["logical_message_rows"] == count(
        "int_cdc__staged_events", "event_kind = 'logical_message'"
    )
    assert totals["staged_rows"] == count("int_cdc__staged_events")
    # The samples hold re-delivered messages and updates sent as two messages.
    assert totals["duplicate_rows"] > 0
    assert totals["update_half_rows"] > 0
    assert totals["tombstone_rows"] > 0
    assert totals["logical_message_rows"] > 0


def test_an_update_sent_as_two_messages_is_two_change_messages(
    pipeline_build: Any, cursor: Any
) -> None:
    halves = query(
        cursor,
        f"""
        select accounting.outcome, accounting.update_half_rows, staged.source_op,
            element_at(split(staged.source_file, '/'), -1) as file_name
        from {ACCOUNTING} as accounting
        inner join {INTERMEDIATE}.int_cdc__staged_events as staged
            using (source_format, source_file, source_position, loaded_at)
        where staged.event_kind = 'update_half' and staged.source_format = 'dataworks_json'
        order by file_name
        """,
    )
    # A first half is a change message whether its second half has come or not.
    assert halves == [
        {"outcome": "change", "update_half_rows": 1, "source_op": "UPDATE_BEFOR", "file_name": name}
        for name in ["03_table_without_primary_key.kcat.jsonl", "unpaired_update_befor.jsonl"]
    ]


# ---------- the check catches a loss


def compiled_accounting() -> str:
    """The model's SQL as dbt last compiled it."""
    path = "compiled/cdc_lake/models/intermediate/int_cdc__message_accounting.sql"
    return (dbt_target_path() / path).read_text(encoding="utf-8")


@pytest.fixture
def probe(pipeline_build: Any, cursor: Any) -> Iterator[Any]:
    """Runs the model's compiled SQL with some inputs replaced by temporary views. Compiled as
    the full reconciliation (`--full-refresh`: every landed message), not as the increment
    the next run would append."""
    compiling = run_dbt("compile", "--full-refresh", "--select", "int_cdc__message_accounting")
    assert compiling.success, compiling.exception
    compiled = compiled_accounting()
    views: list[str] = []

    def unaccounted(replacements: dict[str, str]) -> list[dict[str, Any]]:
        sql = compiled
        for model, select in replacements.items():
            relation = f"{INTERMEDIATE}.{model}"
            assert relation in sql, relation
            view = f"accounting_probe_{uuid.uuid4().hex}"
            run(cursor, f"create temporary view {view} as {select}")
            views.append(view)
            sql = sql.replace(relation, view)
        return query(
            cursor,
            "select source_format, source_file, source_position, "
            "cast(loaded_at as string) as loaded_at, staged_rows, change_rows, duplicate_rows, "
            "unaccounted_rows, "
            f"accounting_error from ({sql}) as accounting where is_unaccounted and {BUILT}",
        )

    yield unaccounted
    for view in views:
        run(cursor, f"drop view if exists {view}")


def message_of(row: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(row[column] for column in MESSAGE)


def lineage_filter(row: dict[str, Any]) -> str:
    return (
        f"source_format = '{row['source_format']}' and source_file = '{row['source_file']}' "
        f"and source_position = {row['source_position']} "
        f"and loaded_at = timestamp'{row['loaded_at']}'"
    )


def staged_with_kept_flag(row: dict[str, Any], kept: str) -> str:
    """Staging's rows as the accounting reads them, with the flag of `row` (its message and
    `row_index`) set by `kept`, an expression of `is_first_delivery` and `is_row`."""
    is_row = f"({lineage_filter(row)} and row_index = {row['row_index']})"
    return (
        "select event_id, event_kind, op, source_format, source_file, source_position, "
        f"loaded_at, row_index, {kept.format(is_row=is_row)} as is_first_delivery "
        f"from {INTERMEDIATE}.int_cdc__staged_events"
    )


def test_a_change_no_delivery_keeps_is_caught(probe: Any, cursor: Any) -> None:
    # A row of a message of several row-changes, none of them delivered twice, whose event no
    # other delivery carries (a file landed twice has every event twice: not a victim). The
    # change log keeps each event's first delivery: staging losing that flag loses the row.
    victim = query(
        cursor,
        f"""
        with single_deliveries as (
            select event_id from {INTERMEDIATE}.int_cdc__staged_events
            group by event_id having count(*) = 1
        )
        select accounting.source_format, accounting.source_file,
            cast(accounting.source_position as bigint) as source_position,
            cast(accounting.loaded_at as string) as loaded_at, change_log.row_index
        from {ACCOUNTING} as accounting
        inner join {INTERMEDIATE}.int_cdc__change_log as change_log
            using (source_format, source_file, source_position, loaded_at)
        inner join single_deliveries using (event_id)
        where accounting.change_rows >= 2 and accounting.duplicate_rows = 0
            and accounting.staged_rows = accounting.change_rows
        order by source_format, source_file, source_position, loaded_at, row_index desc
        limit 1
        """,
    )[0]
    unkept = staged_with_kept_flag(victim, "is_first_delivery and not {is_row}")
    flagged = probe({"int_cdc__staged_events": unkept})
    assert [message_of(row) for row in flagged] == [message_of(victim)]
    assert flagged[0]["unaccounted_rows"] == 1
    assert flagged[0]["accounting_error"].startswith("staged rows in no model")


def test_a_change_two_deliveries_keep_is_caught(probe: Any, cursor: Any) -> None:
    # An event delivered twice (its message landed again) whose second delivery staging also
    # flagged as kept: the change log would hold it twice. Its row is unaccounted in both
    # messages, and each message's rows still add up to what it staged.
    staged = f"{INTERMEDIATE}.int_cdc__staged_events"
    lineage = (
        "source_format, source_file, cast(source_position as bigint) as source_position, "
        "cast(loaded_at as string) as loaded_at, row_index"
    )
    twice = (
        f"select event_id from {staged} where {BUILT} and event_kind = 'change' "
        "group by event_id having count(*) = 2 and count_if(is_first_delivery) = 1"
    )
    victim = query(
        cursor,
        f"select event_id, {lineage} from {staged} where not is_first_delivery "
        f"and event_id in ({twice}) "
        "order by source_format, source_file, source_position, loaded_at, row_index limit 1",
    )[0]
    kept = query(
        cursor,
        f"select {lineage} from {staged} "
        f"where event_id = '{victim['event_id']}' and is_first_delivery",
    )[0]
    doubled = staged_with_kept_flag(victim, "is_first_delivery or {is_row}")
    flagged = probe({"int_cdc__staged_events": doubled})
    assert sorted(message_of(row) for row in flagged) == sorted(
        [message_of(victim), message_of(kept)]
    )
    for row in flagged:
        staged_rows = scalar(cursor, f"select count(*) from {staged} where {lineage_filter(row)}")
        assert row["unaccounted_rows"] == 1
        assert row["staged_rows"] == staged_rows
        assert row["change_rows"] + row["duplicate_rows"] + 1 == staged_rows


def test_a_row_in_a_model_twice_is_caught(probe: Any, cursor: Any) -> None:
    schema_changes = f"{INTERMEDIATE}.int_cdc__schema_changes"
    victim = query(
        cursor,
        f"select source_format, source_file, cast(source_position as bigint) as source_position, "
        f"cast(loaded_at as string) as loaded_at from {schema_changes} where {BUILT} "
        f"order by source_format, source_file, source_position, loaded_at limit 1",
    )[0]
    doubled = (
        f"select * from {schema_changes} union all "
        f"select * from {schema_changes} where {lineage_filter(victim)}"
    )
    flagged = probe({"int_cdc__schema_changes": doubled})
    assert [message_of(row) for row in flagged] == [message_of(victim)]
    assert flagged[0]["unaccounted_rows"] == 1


def test_only_models_that_store_rows_are_read_again(probe: Any) -> None:
    # Views of staging hold what their filter keeps: checked by staging's flag, not re-read.
    compiled = compiled_accounting()
    assert f"{INTERMEDIATE}.int_cdc__schema_changes" in compiled
    views = ("int_cdc__heartbeats", "int_cdc__transaction_markers", "int_cdc__rejected_messages")
    for view in views:
        assert f"{INTERMEDIATE}.{view}" not in compiled, view


def test_a_message_staging_lost_is_caught(probe: Any, cursor: Any) -> None:
    staged = f"{INTERMEDIATE}.int_cdc__staged_events"
    victim = query(
        cursor,
        f"select source_format, source_file, cast(source_position as bigint) as source_position, "
        f"cast(loaded_at as string) as loaded_at from {ACCOUNTING} "
        f"where outcome = 'rejected' "
        f"order by source_format, source_file, source_position, loaded_at limit 1",
    )[0]
    lossy = f"select * from {staged} where not ({lineage_filter(victim)})"
    flagged = probe({"int_cdc__staged_events": lossy})
    assert [message_of(row) for row in flagged] == [message_of(victim)]
    assert flagged[0]["staged_rows"] == 0
    assert flagged[0]["accounting_error"] == "landed message gave no staged row"
