"""The fuzz harness's input (support/fuzzing.py) is what it claims, without Spark: reproducible,
hostile, and kept out of the samples' tables."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from support.fuzzing import (
    CONTROL_PREFIX,
    JSON_DEPTH,
    MESSAGE_CHARACTERS,
    NAME_CHARACTERS,
    PREFIX,
    ROW_COLUMNS,
    control_key_settings,
    dumps,
    limit_messages,
    mutants,
    numbers_as_sent,
    originals,
    renamed,
    sample_messages,
    write_fuzz_files,
)

from cdc_lake.dts_avro import dts_avro_json
from cdc_lake.formats import FORMATS


def test_the_same_seed_writes_the_same_mutants_and_another_seed_others() -> None:
    for fmt in FORMATS:
        assert mutants(fmt, 30, seed=7) == mutants(fmt, 30, seed=7)
        assert mutants(fmt, 30, seed=7) != mutants(fmt, 30, seed=8)


def test_the_mutants_include_every_kind_of_hostile_line() -> None:
    lines = mutants("canal_json", 400, seed=1)

    def parses(line: bytes) -> bool:
        try:
            json.loads(line)
        except (ValueError, RecursionError):
            return False
        return True

    assert any(not parses(line) for line in lines)  # truncated, not JSON, flipped
    assert any(b"\xff" in line or b"\xed\xa0\x80" in line for line in lines)  # invalid UTF-8
    assert any(len(line) > 100_000 for line in lines)  # huge values and names
    assert any(b"[" * 3000 in line for line in lines)  # deep nesting
    assert any(str(2**70).encode() in line for line in lines)  # past 2^64
    assert all(b"\n" not in line and b"\r" not in line for line in lines)  # one line each


def test_every_name_moves_into_a_namespace_and_nothing_else_changes() -> None:
    for fmt in FORMATS:
        if fmt == "dts_avro":
            continue
        for sample, control in zip(
            sample_messages(fmt), originals(fmt, CONTROL_PREFIX), strict=True
        ):
            unchanged = dumps(numbers_as_sent(sample))
            assert control.replace(CONTROL_PREFIX.encode(), b"") == unchanged, fmt
    [canal] = originals("canal_json", PREFIX)[:1]
    message = json.loads(canal)
    assert (message["database"], message["table"]) == (PREFIX + "inventory", PREFIX + "products2")


def test_a_control_copy_keeps_each_number_as_the_sample_wrote_it() -> None:
    sample = b'{"table":"t","price":1.50,"ratio":1E+3,"list":[0.10,2],"zero":-0.0,"text":"1.50"}'
    assert dumps(renamed(numbers_as_sent(sample), "p_")) == sample.replace(b'"t"', b'"p_t"')


def test_avro_records_are_renamed_and_still_decode() -> None:
    for record in originals("dts_avro", CONTROL_PREFIX):
        text, error = dts_avro_json(record)
        assert error is None
        assert '"object_name":"fuzzctl_shop.orders"' in text or '"object_name":null' in text


def test_fuzz_files_hold_the_control_then_the_mutants(tmp_path: Path) -> None:
    control, hostile = write_fuzz_files(tmp_path, "dts_avro", 20, seed=3)
    assert [base64.b64decode(line) for line in control.read_bytes().splitlines()] == originals(
        "dts_avro", CONTROL_PREFIX
    )
    assert len(hostile.read_bytes().splitlines()) == 20


def test_control_copies_get_their_originals_key_columns() -> None:
    settings = control_key_settings(
        {"lindorm_json_primary_keys": {"ld-xxxx.default.customers": ["id"]}, "other": 1}
    )
    assert settings == {
        "lindorm_json_primary_keys": {
            "ld-xxxx.default.customers": ["id"],
            "fuzzctl_ld-xxxx.fuzzctl_default.fuzzctl_customers": ["id"],
        }
    }


def test_the_limit_messages_sit_at_and_past_each_limit() -> None:
    def depth(text: bytes) -> int:
        deepest = level = 0
        for char in text.decode():  # the messages' strings hold no brackets
            level += char in "[{"
            level -= char in "]}"
            deepest = max(deepest, level)
        return deepest

    messages = [message for message, _ in limit_messages()]
    depths = sorted(depth(message) for message in messages if len(message) < 100_000)
    assert depths[-2:] == [JSON_DEPTH, 3 * JSON_DEPTH]
    tables = [json.loads(message)["table"] for message in messages[:4]]
    assert [len(table) for table in tables[:2]] == [NAME_CHARACTERS, NAME_CHARACTERS + 1]
    assert tables[2:] == [[], {"a": 1}]
    widths = [len(json.loads(message)["data"][1]) for message in messages[6:8]]
    assert widths == [ROW_COLUMNS, ROW_COLUMNS + 1]
    assert len(messages[-1]) > MESSAGE_CHARACTERS
