"""Sync progress and source freshness over every bundled sample and fixture.

`cdc_sync_progress` is checked against the intermediate models it summarises (recomputed here
per source and topic), and `dbt source freshness` is run against the session's server: every
landing table passes (all were loaded minutes ago), with `loaded_at` as the loaded-at field,
the thresholds of dbt_project.yml, and no deprecation warning.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import pytest
from support.pipeline import PROJECT_ARGS, dbt_target_path, query

from cdc_lake.client import run
from cdc_lake.formats import FORMATS, landing_table

pytestmark = pytest.mark.spark

PROGRESS = "cdc_lake.cdc_sync_progress"
INTERMEDIATE = "cdc_lake_intermediate"
ACCOUNTING = f"{INTERMEDIATE}.int_cdc__message_accounting"
TEXT_TIME = "yyyy-MM-dd HH:mm:ss.SSSSSS"


def by_source_and_topic(rows: list[dict[str, Any]]) -> dict[tuple[Any, Any], dict[str, Any]]:
    return {(row.pop("source_format"), row.pop("kafka_topic")): row for row in rows}


def text(column: str) -> str:
    return f"date_format({column}, '{TEXT_TIME}')"


def test_one_row_per_source_and_topic_with_every_message(pipeline_build: Any, cursor: Any) -> None:
    statuses = {result.node.name: result.status for result in pipeline_build.result.results}
    assert statuses["cdc_sync_progress"] == "success"
    progress = by_source_and_topic(
        query(
            cursor,
            f"""
            select source_format, kafka_topic, messages, change_messages + heartbeat_messages
                + schema_change_messages + transaction_messages + tombstone_messages
                + logical_message_messages + rejected_messages + duplicate_messages
                + unaccounted_messages as by_outcome,
                unaccounted_messages, {text("last_loaded_at")} as last_loaded_at
            from {PROGRESS}
            """,
        )
    )
    expected = by_source_and_topic(
        query(
            cursor,
            f"""
            select source_format, kafka_topic, count(*) as messages, count(*) as by_outcome,
                0 as unaccounted_messages, {text("max(loaded_at)")} as last_loaded_at
            from {ACCOUNTING}
            group by source_format, kafka_topic
            """,
        )
    )
    assert progress == expected
    assert {source_format for source_format, _ in progress} == set(FORMATS)
    # Messages without a Kafka envelope have no topic; kcat files give theirs.
    assert any(topic is None for _, topic in progress)
    assert any(topic is not None for _, topic in progress)


def test_last_times_come_from_the_models(pipeline_build: Any, cursor: Any) -> None:
    progress = by_source_and_topic(
        query(
            cursor,
            f"""
            select source_format, kafka_topic,
                {text("last_heartbeat_at")} as last_heartbeat_at,
                {text("last_event_at")} as last_event_at,
                {text("last_sync_at")} as last_sync_at,
                {text("progress_at")} as progress_at,
                change_rows, rejected_rows
            from {PROGRESS}
            """,
        )
    )
    no_time = "cast(null as timestamp)"
    events = " union all ".join(
        f"select source_format, kafka_topic, {event_at} as event_at, "
        f"{heartbeat_at} as heartbeat_at, sync_ts, {change} as is_change "
        f"from {INTERMEDIATE}.{model}"
        for model, event_at, heartbeat_at, change in (
            ("int_cdc__change_log", "source_ts", no_time, 1),
            ("int_cdc__schema_changes", "source_ts", no_time, 0),
            ("int_cdc__transaction_markers", "source_ts", no_time, 0),
            ("int_cdc__heartbeats", no_time, "heartbeat_at", 0),
        )
    )
    expected = by_source_and_topic(
        query(
            cursor,
            f"""
            select source_format, kafka_topic,
                {text("max(heartbeat_at)")} as last_heartbeat_at,
                {text("max(event_at)")} as last_event_at,
                {text("max(sync_ts)")} as last_sync_at,
                {text("greatest(max(heartbeat_at), max(event_at))")} as progress_at,
                sum(is_change) as change_rows
            from ({events}) as events
            group by source_format, kafka_topic
            """,
        )
    )
    rejected = by_source_and_topic(
        query(
            cursor,
            f"select source_format, kafka_topic, count(*) as rejected_rows "
            f"from {INTERMEDIATE}.int_cdc__rejected_messages group by source_format, kafka_topic",
        )
    )
    for key, row in progress.items():
        assert row["rejected_rows"] == rejected.get(key, {}).get("rejected_rows", 0), key
        row.pop("rejected_rows")
    # Sources and topics whose every message was rejected have no event: all NULL, 0 changes.
    no_events = {"last_heartbeat_at": None, "last_event_at": None, "last_sync_at": None}
    for key in progress.keys() - expected.keys():
        expected[key] = {**no_events, "progress_at": None, "change_rows": 0}
    assert progress == expected
    # Somewhere a heartbeat is newer than the last event: then it is the progress.
    assert any(
        row["last_heartbeat_at"] and row["last_heartbeat_at"] == row["progress_at"]
        for row in progress.values()
    )


def test_lag_and_sync_delay(pipeline_build: Any, cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select source_format, kafka_topic, {text("built_at")} as built_at,
            {text("progress_at")} as progress_at, cast(lag_seconds as double) as lag_seconds,
            {text("newest_change_source_ts")} as newest_change_source_ts,
            cast(newest_change_sync_delay_seconds as double) as sync_delay
        from {PROGRESS}
        """,
    )
    newest = by_source_and_topic(
        query(
            cursor,
            f"""
            select source_format, kafka_topic,
                {text("max_by(source_ts, struct(source_ts, ordering_key))")}
                    as newest_change_source_ts,
                cast(max_by(
                    (unix_micros(sync_ts) - unix_micros(source_ts)) / 1e6,
                    struct(source_ts, ordering_key)
                ) as double) as sync_delay
            from {INTERMEDIATE}.int_cdc__change_log
            group by source_format, kafka_topic
            """,
        )
    )
    assert len({row["built_at"] for row in rows}) == 1
    for row in rows:
        key = (row["source_format"], row["kafka_topic"])
        if row["progress_at"] is None:
            assert row["lag_seconds"] is None, key
        else:
            built_at = datetime.fromisoformat(row["built_at"])
            progress_at = datetime.fromisoformat(row["progress_at"])
            assert row["lag_seconds"] == pytest.approx((built_at - progress_at).total_seconds())
            assert row["lag_seconds"] > 0, key  # the samples are all in the past
        change = newest.get(key, {"newest_change_source_ts": None, "sync_delay": None})
        assert row["newest_change_source_ts"] == change["newest_change_source_ts"], key
        assert row["sync_delay"] == pytest.approx(change["sync_delay"]), key
    assert any(row["sync_delay"] is not None and row["sync_delay"] > 0 for row in rows)


def test_source_freshness_on_every_landing_table(pipeline_build: Any, cursor: Any) -> None:
    from dbt.cli.main import dbtRunner

    event_names: list[str] = []
    result = dbtRunner(callbacks=[lambda event: event_names.append(event.info.name)]).invoke(
        ["source", "freshness", *PROJECT_ARGS]
    )
    assert result.success, result.exception
    assert [name for name in event_names if "Deprecation" in name] == []
    report = json.loads((dbt_target_path() / "sources.json").read_text())
    results = {entry["unique_id"].rsplit(".", 1)[-1]: entry for entry in report["results"]}
    assert set(results) == set(FORMATS)
    for fmt, entry in results.items():
        assert entry["status"] == "pass", (fmt, entry)
        assert entry["criteria"]["warn_after"] == {"count": 6, "period": "hour"}
        assert entry["criteria"]["error_after"] == {"count": 24, "period": "hour"}
        # The newest loaded_at of the table, as dbt read it.
        newest = run(cursor, f"select {text('max(loaded_at)')} from {landing_table(fmt)}")[0][0]
        max_loaded_at = datetime.fromisoformat(entry["max_loaded_at"])
        assert max_loaded_at.strftime("%Y-%m-%d %H:%M:%S.%f") == newest, fmt
