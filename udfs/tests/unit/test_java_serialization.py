"""The Java serialization decoder on real streams, crafted hostile streams and random input.

Real streams come from two places: the DataWorks sample in the vendor docs, and streams a real JVM
writes from the small stand-in classes under `java/` (FastSQL's class and field names, a subset of
the fields), so the tests check the protocol as Java writes it, not as we believe it is written.
The decoder runs inside Spark tasks, where an exception would fail the whole dbt run: every input
must give a value or a reason, never raise, and hostile input must be stopped by the limits.
"""

from __future__ import annotations

import base64
import json
import shutil
import struct
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.project import SAMPLES

from cdc_lake import java_serialization
from cdc_lake.java_serialization import MAX_DEPTH, ddl_meta_summary, java_object_json

MODEST = settings(max_examples=250, deadline=None)
JAVA_SOURCES = Path(__file__).resolve().parent / "java"
SAMPLE_FILE = SAMPLES / "datahub_blob" / "04_ddl_alter_table.jsonl"
SAMPLE_BASE64: str = json.loads(SAMPLE_FILE.read_text().splitlines()[0])["payload"]["ddl"][
    "ddlMeta"
]
SAMPLE = base64.b64decode(SAMPLE_BASE64)
FASTSQL = "com.alibaba.fastsql.sql.ast"
HEADER = b"\xac\xed\x00\x05"
OBJECT_ARRAY = "[Ljava.lang.Object;"


def decoded(data: str | bytes) -> Any:
    """The JSON of a stream that must decode, parsed back."""
    text, error = java_object_json(data)
    assert error is None, error
    assert text is not None
    text.encode("utf-8")  # what Spark will do with it
    return json.loads(text)


def assert_value_or_reason(result: tuple[Any, str | None]) -> None:
    """Exactly one of (value, reason) for non-NULL input; a value is valid UTF-8 JSON."""
    value, reason = result
    assert (value is None) != (reason is None), result
    if isinstance(value, str):
        json.loads(value)
        value.encode("utf-8")
    if reason is not None:
        assert isinstance(reason, str)
        assert reason


# ---------- crafted streams, built by hand from the protocol grammar


def utf(text: str) -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(">H", len(raw)) + raw


def class_desc(name: str, flags: int = 0x02, fields: bytes = b"\x00\x00") -> bytes:
    """TC_CLASSDESC, no serialVersionUID check, no annotation, no superclass."""
    return b"\x72" + utf(name) + bytes(8) + bytes([flags]) + fields + b"\x78\x70"


def reference(handle: int) -> bytes:
    return b"\x71" + struct.pack(">i", 0x7E0000 + handle)


def array_header(length: int, desc: bytes) -> bytes:
    return b"\x75" + desc + struct.pack(">i", length)


# ---------- the real sample from the DataWorks docs


def test_real_sample_summary() -> None:
    assert ddl_meta_summary(SAMPLE_BASE64) == (
        {
            "ddl_text": "alter table t_shiyu_nopk add column holo text",
            "statement_type": "alter_table",
            "db_type": "mysql",
            "table_name": "t_shiyu_nopk",
            "columns": [{"action": "add", "name": "holo", "new_name": None, "data_type": "text"}],
        },
        None,
    )


def test_real_sample_json_tree() -> None:
    tree = decoded(SAMPLE_BASE64)
    assert tree["@class"] == "com.alibaba.di.plugin.center.meta.DDLMeta"
    assert tree["ddlText"] == "alter table t_shiyu_nopk add column holo text"
    statement = tree["statement"]
    assert statement["@class"] == f"{FASTSQL}.statement.SQLAlterTableStatement"
    assert statement["dbType"] == {"@enum": "com.alibaba.fastsql.DbType", "name": "mysql"}
    add_column = statement["items"][0]
    # The item's parent is the statement, still being read when the item is: a cut cycle.
    assert add_column["parent"] == {"@ref": f"{FASTSQL}.statement.SQLAlterTableStatement"}
    column = add_column["columns"][0]
    assert column["name"]["name"] == "holo"
    # DbType.mysql is written once and referenced afterwards: the same value in both places.
    assert column["dbType"] == statement["dbType"]
    assert column["dataType"]["nameHashCode64"] == -430950356557152130  # a long
    assert statement["tableSource"]["expr"]["name"] == "t_shiyu_nopk"


def test_base64_forms_and_bytes_agree() -> None:
    expected = java_object_json(SAMPLE)
    wrapped = "\n".join(SAMPLE_BASE64[i : i + 76] for i in range(0, len(SAMPLE_BASE64), 76))
    assert java_object_json(wrapped) == expected
    assert java_object_json("  " + SAMPLE_BASE64.rstrip("=") + "\r\n") == expected
    assert java_object_json(bytearray(SAMPLE)) == expected


def test_null_is_null_without_reason() -> None:
    assert java_object_json(None) == (None, None)
    assert ddl_meta_summary(None) == (None, None)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ("", "empty input"),
        ("rO0AB$$$", "not base64"),
        ("rO0AB\u00e9", "not base64"),
        (b"\x00\x01\x00\x05p", "not a Java serialization stream: magic 0x0001"),
        (b"\xac\xed\x00\x04p", "unsupported stream version 4"),
        (HEADER, "the stream holds no object"),
        (HEADER + b"\x74\x00\x05ab", "truncated stream: needed 5 bytes at offset 7"),
        (HEADER + b"\x01", "unknown type code 0x01 at offset 4"),
        (HEADER + b"\x73\x70", "object without a class description at offset 5"),
        (HEADER + b"\x74\x00\x02\xed\xa0", "malformed modified UTF-8 string at offset 7"),
        (HEADER + b"\x74\x00\x04\xf0\x9f\x98\x80", "malformed modified UTF-8"),
        (HEADER + reference(3), "reference to unknown handle 0x7e0003 at offset 5"),
        (HEADER + b"\x77\x01\x00" + b"\x73\x77", "expected a class description at offset 8"),
        (HEADER + b"\x75" + class_desc("[I") + b"\xff\xff\xff\xff", "negative array length -1"),
        (HEADER + array_header(1, class_desc(OBJECT_ARRAY)) + b"\x79", "reset inside an object"),
        (HEADER + b"\x7c" + struct.pack(">q", -1), "negative string length -1"),
        (HEADER + b"\x73" + class_desc("X", 0x06), "externalizable X written without block data"),
        (HEADER + b"\x73" + class_desc("X", fields=b"\x00\x01Q" + utf("q")), "unknown field type"),
        # A class description that is its own superclass must not loop.
        (
            HEADER + b"\x73\x72" + utf("Loop") + bytes(8) + b"\x02\x00\x00\x78" + reference(0),
            "class Loop has a superclass description still being read",
        ),
    ],
)
def test_bad_input_gives_a_reason(data: str | bytes, reason: str) -> None:
    value, error = java_object_json(data)
    assert value is None
    assert error is not None
    assert reason in error


def test_wrong_input_type_gives_a_reason() -> None:
    assert java_object_json(5) == (None, "unsupported input type int")  # type: ignore[arg-type]


def test_summary_of_something_else_is_a_reason() -> None:
    stream = HEADER + b"\x74" + utf("just a string")
    assert ddl_meta_summary(stream) == (None, "not a DDLMeta object: found str")


def test_top_level_contents_reset_and_block_data() -> None:
    stream = HEADER + b"\x74" + utf("a") + b"\x79" + b"\x74" + utf("b") + b"\x77\x02\x00\x2a"
    assert decoded(stream) == {"@contents": ["a", "b", {"@blockdata": "ACo="}]}


def test_lone_surrogate_is_escaped_in_json() -> None:
    text, error = java_object_json(HEADER + b"\x74\x00\x03\xed\xa0\x80")
    assert error is None
    assert text == '"\\ud800"'
    assert json.loads(text) == "\ud800"


def test_exception_in_a_crafted_stream_is_reported() -> None:
    fields = b"\x00\x01L" + utf("detailMessage") + b"\x74" + utf("Ljava/lang/String;")
    thrown = b"\x73" + class_desc("java.io.IOException", fields=fields) + b"\x74" + utf("boom")
    value, error = java_object_json(HEADER + b"\x7b" + thrown)
    assert value is None
    assert error == (
        "the writer failed and wrote an exception at offset 4 instead of the object: "
        "java.io.IOException: boom"
    )


# ---------- limits: hostile streams end quickly with a reason


def timed(data: bytes) -> tuple[str | None, str | None]:
    started = time.monotonic()
    result = java_object_json(data)
    assert time.monotonic() - started < 2
    return result


@pytest.mark.parametrize(
    "stream",
    [
        HEADER + array_header(2**31 - 1, class_desc("[J")),
        HEADER + array_header(2**31 - 1, class_desc("[B")),
        HEADER + array_header(2**31 - 1, class_desc(OBJECT_ARRAY)),
        HEADER + b"\x7c" + struct.pack(">q", 2**63 - 1),
        HEADER + b"\x77\x10" + b"ab",
        HEADER + b"\x7a" + struct.pack(">i", 2**31 - 1),
    ],
)
def test_huge_lengths_fail_without_allocating(stream: bytes) -> None:
    value, error = timed(stream)
    assert value is None
    assert error is not None
    assert error.startswith("truncated stream: needed")


def test_deep_nesting_is_a_depth_error_not_a_recursion_error() -> None:
    levels = 10_000
    stream = (
        HEADER
        + array_header(1, class_desc(OBJECT_ARRAY))
        + (b"\x75" + reference(0) + struct.pack(">i", 1)) * (levels - 1)
        + b"\x70"
    )
    value, error = timed(stream)
    assert value is None
    assert error is not None
    assert error.startswith(f"nesting deeper than {MAX_DEPTH} levels at offset")


def test_nesting_just_under_the_limit_decodes() -> None:
    # ArrayLists inside ArrayLists, the costliest nesting in Python frames: MAX_DEPTH must stay
    # within the default recursion limit, with room left for the caller (Spark's worker, pytest).
    levels = MAX_DEPTH - 1
    desc = class_desc("java.util.ArrayList", 0x03, b"\x00\x01I" + utf("size"))
    one_element = struct.pack(">i", 1) + b"\x77\x04" + struct.pack(">i", 1)
    stream = (
        HEADER
        + b"\x73"
        + desc
        + one_element
        + (b"\x73" + reference(0) + one_element) * (levels - 1)
        + b"\x70"
        + b"\x78" * levels
    )
    value: Any = decoded(stream)
    for _ in range(levels):
        assert isinstance(value, list)
        assert len(value) == 1
        value = value[0]
    assert value is None


def chain_of_references(length: int, references_per_link: int) -> bytes:
    """An Object[] whose element i is a new Object[] referring to element i-1 again and again.

    Handles: 0 the class description, 1 the outer array, 2 + i element i.
    """
    elements = [array_header(0, reference(0))]
    for index in range(1, length):
        elements.append(
            array_header(references_per_link, reference(0))
            + reference(2 + index - 1) * references_per_link
        )
    return HEADER + array_header(length, class_desc(OBJECT_ARRAY)) + b"".join(elements)


def test_shared_references_cannot_expand_exponentially() -> None:
    # 60 links, each referring twice to the previous one: 2^60 leaves once expanded.
    value, error = timed(chain_of_references(60, 2))
    assert value is None
    assert error is not None
    assert "once back-references are expanded" in error
    assert error.startswith("JSON larger than")


def test_references_cannot_build_unbounded_depth() -> None:
    # Each element is read at depth 2, but element i holds element i-1: depth 300 once expanded.
    value, error = timed(chain_of_references(300, 1))
    assert value is None
    assert error == (f"nesting deeper than {MAX_DEPTH} levels once back-references are expanded")
    # A short chain is fine, and each shared element appears in full.
    assert decoded(chain_of_references(3, 2)) == [[], [[], []], [[[], []], [[], []]]]


def test_object_count_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(java_serialization, "MAX_HANDLES", 10)
    assert java_object_json(HEADER + (b"\x74" + utf("s")) * 10)[1] is None
    assert java_object_json(HEADER + (b"\x74" + utf("s")) * 11) == (
        None,
        "more than 10 objects in the stream",
    )


def test_input_size_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(java_serialization, "MAX_INPUT_BYTES", 100)
    assert java_object_json(SAMPLE) == (None, "stream larger than 100 bytes")


# ---------- every truncation and random corruption of the real sample


def test_every_truncation_of_the_sample_is_a_truncation_reason() -> None:
    for length in range(len(SAMPLE)):
        value, error = java_object_json(SAMPLE[:length])
        assert value is None
        if length == 0:
            assert error == "empty input"
        elif length == len(HEADER):
            assert error == "the stream holds no object"
        else:
            assert error is not None
            assert error.startswith("truncated stream: needed"), (length, error)


@MODEST
@given(position=st.integers(0, len(SAMPLE) - 1), byte=st.integers(0, 255))
def test_corrupted_sample_never_raises(position: int, byte: int) -> None:
    corrupted = SAMPLE[:position] + bytes([byte]) + SAMPLE[position + 1 :]
    assert_value_or_reason(java_object_json(corrupted))
    assert_value_or_reason(ddl_meta_summary(corrupted))


@MODEST
@given(data=st.binary(max_size=300))
def test_random_bytes_never_raise(data: bytes) -> None:
    assert_value_or_reason(java_object_json(data))
    assert_value_or_reason(ddl_meta_summary(data))


@MODEST
@given(data=st.binary(max_size=300))
def test_random_bytes_after_a_valid_header_never_raise(data: bytes) -> None:
    assert_value_or_reason(java_object_json(HEADER + data))
    assert_value_or_reason(ddl_meta_summary(HEADER + data))


@MODEST
@given(
    text=st.text(
        alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/= \n\t-_.",
        max_size=300,
    )
)
def test_random_base64_text_never_raises(text: str) -> None:
    assert_value_or_reason(java_object_json("rO0ABX" + text))
    assert_value_or_reason(java_object_json(text))
    assert_value_or_reason(ddl_meta_summary(text))


# ---------- streams written by a real JVM (javac + java on the machine)


@pytest.fixture(scope="session")
def java_streams(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Compile the stand-in classes and WriteSamples once, and read every stream it writes."""
    javac, java = shutil.which("javac"), shutil.which("java")
    if javac is None or java is None:
        pytest.fail(
            "these tests need Java 17 (javac and java on PATH) to write real serialization "
            "streams: apt-get install openjdk-17-jdk-headless"
        )
    classes = tmp_path_factory.mktemp("java-classes")
    streams = tmp_path_factory.mktemp("java-streams")
    sources = sorted(str(path) for path in JAVA_SOURCES.rglob("*.java"))
    for command in (
        [javac, "-encoding", "UTF-8", "-d", str(classes), *sources],
        [java, "-cp", str(classes), "WriteSamples", str(streams)],
    ):
        done = subprocess.run(command, capture_output=True, text=True, timeout=180, check=False)
        if done.returncode != 0:
            pytest.fail(f"{Path(command[0]).name} failed:\n{done.stdout}\n{done.stderr}")
    return {path.stem: path.read_bytes() for path in streams.glob("*.ser")}


def column(action: str, name: str, new_name: str | None, data_type: str | None) -> dict:
    return {"action": action, "name": name, "new_name": new_name, "data_type": data_type}


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        (
            "alter_add_column",
            {
                "ddl_text": "alter table shop.orders add column `note` varchar(255),"
                " add column qty int unsigned",
                "statement_type": "alter_table",
                "db_type": "mysql",
                "table_name": "shop.orders",
                "columns": [
                    column("add", "note", None, "varchar(255)"),
                    column("add", "qty", None, "int unsigned"),
                ],
            },
        ),
        (
            "alter_drop_column",
            {
                "ddl_text": "alter table t_drop drop column a, drop column `b`",
                "statement_type": "alter_table",
                "db_type": "mysql",
                "table_name": "t_drop",
                "columns": [column("drop", "a", None, None), column("drop", "b", None, None)],
            },
        ),
        (
            "alter_modify_column",
            {
                "ddl_text": "alter table t_modify modify column price decimal(10,2)",
                "statement_type": "alter_table",
                "db_type": "mysql",
                "table_name": "t_modify",
                "columns": [column("modify", "price", None, "decimal(10,2)")],
            },
        ),
        (
            "alter_change_column",
            {
                "ddl_text": "alter table t_change change column old_name new_name bigint,"
                " change c `c` text",
                "statement_type": "alter_table",
                "db_type": "mysql",
                "table_name": "t_change",
                "columns": [
                    column("rename", "old_name", "new_name", "bigint"),
                    column("modify", "c", None, "text"),  # CHANGE keeping the name
                ],
            },
        ),
        (
            "alter_rename_column",
            {
                "ddl_text": "alter table t_rename rename column a to b",
                "statement_type": "alter_table",
                "db_type": "mysql",
                "table_name": "t_rename",
                "columns": [column("rename", "a", "b", None)],
            },
        ),
        (
            "create_table",
            {
                "ddl_text": 'create table "db"."users" (id bigint, name varchar(255),'
                " balance decimal(10,2), primary key (id))",
                "statement_type": "create_table",
                "db_type": "postgresql",
                "table_name": "db.users",
                "columns": [
                    column("add", "id", None, "bigint"),
                    column("add", "name", None, "varchar(255)"),
                    column("add", "balance", None, "decimal(10,2)"),
                ],
            },
        ),
        (
            "drop_table",
            {
                "ddl_text": "drop table t_old",
                "statement_type": "drop_table",
                "db_type": "mysql",
                "table_name": "t_old",
                "columns": [],
            },
        ),
        (
            "truncate",
            {
                "ddl_text": "truncate table shop.`cart`",
                "statement_type": "truncate",
                "db_type": "mysql",
                "table_name": "shop.cart",
                "columns": [],
            },
        ),
        (
            "rename_table",
            {
                "ddl_text": "rename table shop.t_a to shop.t_b",
                "statement_type": "rename_table",
                "db_type": "mysql",
                "table_name": "shop.t_a",
                "columns": [],
            },
        ),
        (
            "create_index",
            {
                "ddl_text": "create index idx_a on t_idx (a)",
                "statement_type": "create_index",
                "db_type": "mysql",
                "table_name": "t_idx",
                "columns": [],
            },
        ),
        (
            "drop_index",
            {
                "ddl_text": "drop index idx_a on `t_idx`",
                "statement_type": "drop_index",
                "db_type": "mysql",
                "table_name": "t_idx",
                "columns": [],
            },
        ),
        (
            "create_view",  # a statement the summary does not know: the DDL text carries it
            {
                "ddl_text": "create view v_orders as select 1",
                "statement_type": None,
                "db_type": "oracle",
                "table_name": None,
                "columns": [],
            },
        ),
    ],
)
def test_statement_summaries(java_streams: dict[str, bytes], sample: str, expected: dict) -> None:
    assert ddl_meta_summary(java_streams[sample]) == (expected, None)
    assert ddl_meta_summary(base64.b64encode(java_streams[sample]).decode()) == (expected, None)


def test_statement_json_keeps_the_hierarchy_and_cuts_parent_cycles(
    java_streams: dict[str, bytes],
) -> None:
    tree = decoded(java_streams["create_table"])
    statement = tree["statement"]
    assert statement["@class"] == "com.alibaba.fastsql.sql.dialect.mysql.ast.statement" + (
        ".MySqlCreateTableStatement"
    )
    # Fields of every class of the hierarchy: SQLObjectImpl, SQLStatementImpl, ..., the dialect.
    assert statement["parent"] is None
    assert statement["dbType"] == {"@enum": "com.alibaba.fastsql.DbType", "name": "postgresql"}
    assert statement["engine"] == "InnoDB"
    balance = statement["tableElementList"][2]
    assert balance["parent"] == {"@ref": statement["@class"]}
    assert balance["dataType"] == {
        "@class": f"{FASTSQL}.SQLDataTypeImpl",
        "parent": {"@ref": f"{FASTSQL}.statement.SQLColumnDefinition"},
        "unsigned": False,
        "name": "decimal",
        "arguments": [
            {
                "@class": f"{FASTSQL}.expr.SQLIntegerExpr",
                "parent": {"@ref": f"{FASTSQL}.SQLDataTypeImpl"},
                "number": number,
            }
            for number in (10, 2)
        ],
    }


@pytest.mark.parametrize(
    ("sample", "expected"),
    [
        (
            "everything",
            {
                "@class": "cdclake.samples.Everything",
                "b": -5,
                "c": "\u00e9",
                "d": 2.5,
                "notANumber": "NaN",
                "f": 0.1,
                "negativeInfinity": "-Infinity",
                "i": -7,
                "j": 1 << 40,
                "s": 300,
                "z": True,
                "bytes": {"@class": "[B", "base64": "AAH/"},
                "ints": [1, 2, 3],
                "grid": [["a", None], []],
                "boxedInt": 42,
                "boxedLong": -9,
                "color": {"@enum": "cdclake.samples.Color", "name": "GREEN"},
                "text": "h\u00e9llo",
                "nothing": None,
            },
        ),
        ("enum", {"@enum": "cdclake.samples.Color", "name": "RED"}),
        ("boxed_integer", 12345),
        ("nested_lists", [[1, "a"], [], [[2]]]),
        ("linked_list", ["x", "y", "z"]),
        ("hashmap_string_keys", {"a": 1, "b": "x", "c": None}),
        (
            "collections",
            {
                "arrayList": [1, "two"],
                "arrayDeque": ["d1", "d2"],
                "vector": ["v1", "v2"],
                "linkedHashSet": ["s2", "s1"],
                "treeSet": ["a", "b"],
                "treeMap": {"k1": 1, "k2": 2},
                "hashtable": {"h": True},
                "emptyMap": {},
                "atKey": [{"key": "@class", "value": "sneaky"}],
            },
        ),
        (
            "shared",
            [
                {"@class": "cdclake.samples.Node", "name": "leaf", "parent": None, "children": []},
                "same",
                {"@class": "cdclake.samples.Node", "name": "leaf", "parent": None, "children": []},
                "same",
            ],
        ),
        (
            "cycle",
            {
                "@class": "cdclake.samples.Node",
                "name": "root",
                "parent": None,
                "children": [
                    {
                        "@class": "cdclake.samples.Node",
                        "name": "child",
                        "parent": {"@ref": "cdclake.samples.Node"},
                        "children": [],
                    }
                ],
            },
        ),
        (
            "custom_write_object",
            {
                "@class": "cdclake.samples.CustomData",
                "version": 7,
                "@data": [
                    {"@blockdata": base64.b64encode(b"\x00\x00\x00\x2a\x00\x05extra").decode()},
                    "tail",
                ],
            },
        ),
        (
            "externalizable",
            {
                "@class": "cdclake.samples.ExternalThing",
                "@data": [{"@blockdata": base64.b64encode(b"\x00\x00\x00\x05").decode()}, "x"],
            },
        ),
    ],
)
def test_protocol_samples_exact_json(
    java_streams: dict[str, bytes], sample: str, expected: Any
) -> None:
    assert decoded(java_streams[sample]) == expected


def test_unordered_collections(java_streams: dict[str, bytes]) -> None:
    assert sorted(decoded(java_streams["hash_set"])) == ["p", "q", "r"]
    pairs = decoded(java_streams["hashmap_other_keys"])
    assert sorted(pairs, key=json.dumps) == sorted(
        [
            {"key": 1, "value": "one"},
            {"key": 2, "value": "two"},
            {"key": {"@enum": "cdclake.samples.Color", "name": "RED"}, "value": "red"},
        ],
        key=json.dumps,
    )


def test_long_string_uses_modified_utf8(java_streams: dict[str, bytes]) -> None:
    stream = java_streams["long_string"]
    assert stream[4] == 0x7C  # TC_LONGSTRING: more than 65535 bytes of modified UTF-8
    assert decoded(stream) == "\u00e9" * 40000 + "\U0001f600" + "\x00" + "end"


def test_exception_written_by_java_is_a_reason(java_streams: dict[str, bytes]) -> None:
    value, error = java_object_json(java_streams["exception_in_stream"])
    assert value is None
    assert error is not None
    assert error.startswith("the writer failed and wrote an exception at offset")
    assert error.endswith(": java.io.NotSerializableException: java.lang.Object")
