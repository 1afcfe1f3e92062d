"""`dts_avro_json` turns DTS binary Avro Records into the staging model's JSON; bad input must
give a reason, never raise.

Records are written with the shipped schema by fastavro's `schemaless_writer`, which gives the
same bytes as Java's Avro encoder that DTS uses, and read back. Corrupt messages are made by
editing those bytes, so every input stays small.
"""

from __future__ import annotations

import base64
import io
import json
import math
from pathlib import Path
from typing import Any

import fastavro
import pytest
from fastavro.schema import fingerprint, to_parsing_canonical_form
from hypothesis import given, settings
from hypothesis import strategies as st

from cdc_lake import dts_avro
from cdc_lake.dts_avro import dts_avro_json, dts_record_schema

NS = "com.alibaba.dts.formats.avro."
MODEST = settings(max_examples=300, deadline=None)
KEYS = [
    "version",
    "id",
    "source_timestamp",
    "source_position",
    "safe_source_position",
    "source_txid",
    "source",
    "operation",
    "object_name",
    "database_name",
    "schema_name",
    "table_name",
    "process_timestamps",
    "tags",
    "fields",
    "before_images",
    "after_images",
    "ddl_text",
    "born_timestamp",
]
BORN = 1700000000789
POSITION = "4151@mysql-bin.000042"
SOURCE_VERSION = "8.0.32"


def encode(record: dict[str, Any]) -> bytes:
    out = io.BytesIO()
    fastavro.schemaless_writer(out, dts_record_schema(), record)
    return out.getvalue()


def avro_long(value: int) -> bytes:
    """Avro's zig-zag varint, to write corrupt lengths, counts and indexes by hand."""
    out = io.BytesIO()
    fastavro.schemaless_writer(out, "long", value)
    return out.getvalue()


def integer(text: str) -> tuple[str, dict[str, Any]]:
    return (NS + "Integer", {"precision": len(text), "value": text})


def character(data: bytes, charset: str = "utf8mb4") -> tuple[str, dict[str, Any]]:
    return (NS + "Character", {"charset": charset, "value": data})


def date_time(
    year: int | None = None,
    month: int | None = None,
    day: int | None = None,
    hour: int | None = None,
    minute: int | None = None,
    second: int | None = None,
    millis: int | None = None,
) -> dict[str, int | None]:
    return {
        "year": year,
        "month": month,
        "day": day,
        "hour": hour,
        "minute": minute,
        "second": second,
        "millis": millis,
    }


def record(**changes: Any) -> dict[str, Any]:
    """An INSERT into shop.orders from MySQL, with `changes` applied."""
    base = {
        "version": 1,
        "id": 1001,
        "sourceTimestamp": 1700000000,
        "sourcePosition": POSITION,
        "safeSourcePosition": "4000@mysql-bin.000042",
        "sourceTxid": "8812",
        "source": {"sourceType": "MySQL", "version": SOURCE_VERSION},
        "operation": "INSERT",
        "objectName": "shop.orders",
        "processTimestamps": [1700000000500],
        "tags": {"pk_uk_info": '{"PRIMARY":["id"]}', "readerThroughoutTime": "1700000000600"},
        "fields": [{"name": "id", "dataTypeNumber": 8}, {"name": "note", "dataTypeNumber": 253}],
        "beforeImages": None,
        "afterImages": [integer("7"), character(b"hello")],
        "bornTimestamp": BORN,
    }
    return {**base, **changes}


def expected(**changes: Any) -> dict[str, Any]:
    """The JSON of `record()`, with `changes` applied."""
    base = {
        "version": 1,
        "id": 1001,
        "source_timestamp": 1700000000,
        "source_position": POSITION,
        "safe_source_position": "4000@mysql-bin.000042",
        "source_txid": "8812",
        "source": {"sourceType": "MySQL", "version": SOURCE_VERSION},
        "operation": "INSERT",
        "object_name": "shop.orders",
        "database_name": "shop",
        "schema_name": None,
        "table_name": "orders",
        "process_timestamps": [1700000000500],
        "tags": {"pk_uk_info": '{"PRIMARY":["id"]}', "readerThroughoutTime": "1700000000600"},
        "fields": [
            {"name": "id", "data_type_number": 8},
            {"name": "note", "data_type_number": 253},
        ],
        "before_images": None,
        "after_images": {"id": "7", "note": "hello"},
        "ddl_text": None,
        "born_timestamp": BORN,
    }
    return {**base, **changes}


def decoded(raw: bytes) -> dict[str, Any]:
    """The JSON of a message that must decode, with the key order checked."""
    value, error = dts_avro_json(raw)
    assert error is None
    assert value is not None
    result = json.loads(value)
    assert list(result) == KEYS
    return result


def error_of(raw: object) -> str:
    """The reason for a message that must not decode."""
    value, error = dts_avro_json(raw)  # type: ignore[arg-type]
    assert value is None
    assert error is not None
    return error


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# --- the schema -------------------------------------------------------------------------------


def test_schema_is_loaded_from_the_package_and_is_the_documented_one() -> None:
    assert dts_avro.SCHEMA_DIR.is_relative_to(Path(dts_avro.__file__).parent)
    canonical = to_parsing_canonical_form(dts_record_schema())
    assert fingerprint(canonical, "CRC-64-AVRO") == "78c4c4796716ebae"


# --- one record per operation -----------------------------------------------------------------


def test_insert_gives_this_exact_json() -> None:
    value, error = dts_avro_json(encode(record()))
    assert error is None
    assert value == (
        '{"version":1,"id":1001,"source_timestamp":1700000000,'
        '"source_position":"4151@mysql-bin.000042","safe_source_position":"4000@mysql-bin.000042",'
        '"source_txid":"8812","source":{"sourceType":"MySQL","version":"8.0.32"},'
        '"operation":"INSERT","object_name":"shop.orders","database_name":"shop",'
        '"schema_name":null,"table_name":"orders","process_timestamps":[1700000000500],'
        '"tags":{"pk_uk_info":"{\\"PRIMARY\\":[\\"id\\"]}","readerThroughoutTime":"1700000000600"},'
        '"fields":[{"name":"id","data_type_number":8},{"name":"note","data_type_number":253}],'
        '"before_images":null,"after_images":{"id":"7","note":"hello"},"ddl_text":null,'
        '"born_timestamp":1700000000789}'
    )


def test_update_has_both_images() -> None:
    raw = encode(
        record(
            operation="UPDATE",
            beforeImages=[integer("7"), character(b"hello")],
            afterImages=[integer("7"), character(b"bye")],
        )
    )
    assert decoded(raw) == expected(
        operation="UPDATE",
        before_images={"id": "7", "note": "hello"},
        after_images={"id": "7", "note": "bye"},
    )


def test_delete_has_the_before_image() -> None:
    raw = encode(
        record(operation="DELETE", beforeImages=[integer("7"), character(b"bye")], afterImages=None)
    )
    assert decoded(raw) == expected(
        operation="DELETE", before_images={"id": "7", "note": "bye"}, after_images=None
    )


def test_ddl_statement_is_the_string_after_image() -> None:
    statement = "ALTER TABLE `orders` ADD COLUMN `paid` tinyint(1) DEFAULT 0"
    raw = encode(record(operation="DDL", fields=None, afterImages=statement))
    assert decoded(raw) == expected(
        operation="DDL", fields=None, after_images=None, ddl_text=statement
    )


@pytest.mark.parametrize("operation", ["BEGIN", "COMMIT", "HEARTBEAT"])
def test_transaction_markers_and_heartbeats_carry_no_row(operation: str) -> None:
    raw = encode(
        record(
            operation=operation,
            objectName=None,
            processTimestamps=None,
            tags={},
            fields=None,
            afterImages=None,
        )
    )
    assert decoded(raw) == expected(
        operation=operation,
        object_name=None,
        database_name=None,
        table_name=None,
        process_timestamps=None,
        tags={},
        fields=None,
        after_images=None,
    )


def test_message_of_an_old_producer_without_born_timestamp_decodes() -> None:
    raw = encode(record())
    legacy = raw[: -len(avro_long(BORN))]
    assert decoded(legacy) == expected(born_timestamp=None)


@pytest.mark.parametrize("data", [bytearray, memoryview])
def test_other_bytes_like_inputs_are_read(data: type) -> None:
    assert decoded(data(encode(record()))) == expected()


# --- names --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("object_name", "names"),
    [
        ("shop", ("shop", None, None)),
        ("shop.orders", ("shop", None, "orders")),
        ("erp.public.orders", ("erp", "public", "orders")),
        ("my\\u002Edb.t\\u002E1", ("my.db", None, "t.1")),
        ("shop.", ("shop", None, None)),
        ("", (None, None, None)),
        (None, (None, None, None)),
    ],
)
def test_object_name_is_split_into_database_schema_and_table(
    object_name: str | None, names: tuple[str | None, str | None, str | None]
) -> None:
    result = decoded(encode(record(objectName=object_name)))
    assert result["object_name"] == object_name
    assert (result["database_name"], result["schema_name"], result["table_name"]) == names


def test_object_name_of_four_parts_is_an_error() -> None:
    reason = error_of(encode(record(objectName="a.b.c.d")))
    assert reason == "objectName has 4 dot-separated parts, at most 3 expected"


@pytest.mark.parametrize("fields", [None, "id,note"])
def test_images_without_a_field_list_are_keyed_by_position(fields: str | None) -> None:
    result = decoded(encode(record(fields=fields)))
    assert result["fields"] is None
    assert result["after_images"] == {"0": "7", "1": "hello"}


def test_image_and_field_counts_must_match() -> None:
    reason = error_of(encode(record(afterImages=[integer("7")])))
    assert reason == "afterImages has 1 values but fields has 2 columns"


def test_repeated_column_names_are_an_error() -> None:
    fields = [{"name": "id", "dataTypeNumber": 8}, {"name": "id", "dataTypeNumber": 253}]
    assert error_of(encode(record(fields=fields))) == "fields repeat column names: ['id']"


def test_statement_in_before_image_is_taken_and_two_different_ones_are_an_error() -> None:
    only_before = record(
        operation="DDL", fields=None, beforeImages="DROP TABLE t", afterImages=None
    )
    assert decoded(encode(only_before))["ddl_text"] == "DROP TABLE t"
    same = record(
        operation="DDL", fields=None, beforeImages="DROP TABLE t", afterImages="DROP TABLE t"
    )
    assert decoded(encode(same))["ddl_text"] == "DROP TABLE t"
    different = record(operation="DDL", fields=None, beforeImages="a", afterImages="b")
    assert error_of(encode(different)) == (
        "beforeImages and afterImages are two different statement strings"
    )


# --- one test per value type ------------------------------------------------------------------


def text_of(value: Any, **changes: Any) -> str | None:
    """The canonical text of one image value, in a one-column record."""
    raw = encode(
        record(fields=[{"name": "v", "dataTypeNumber": 0}], afterImages=[value], **changes)
    )
    return decoded(raw)["after_images"]["v"]


def test_every_branch_of_the_image_union_in_one_record() -> None:
    moment = date_time(2024, 2, 29, 23, 59, 58, 123456)
    values = [
        None,
        integer("-42"),
        character("中文".encode("gbk"), "gbk"),
        (NS + "Decimal", {"value": "-1234.50", "precision": 6, "scale": 2}),
        (NS + "Float", {"value": 2.5, "precision": 0, "scale": 0}),
        (NS + "Timestamp", {"timestamp": 1700000000, "millis": 654321}),
        (NS + "DateTime", moment),
        (NS + "TimestampWithTimeZone", {"value": moment, "timezone": "+08:00"}),
        (NS + "BinaryGeometry", {"type": "POINT", "value": b"\x01\x01\x00"}),
        (NS + "TextGeometry", {"type": "POINT", "value": "POINT(1 2)"}),
        (NS + "BinaryObject", {"type": "BLOB", "value": b"\x00\xff"}),
        (NS + "TextObject", {"type": "JSON", "value": '{"a": 1}'}),
        (NS + "EmptyObject", "NONE"),
    ]
    fields = [{"name": f"c{index}", "dataTypeNumber": 0} for index in range(len(values))]
    result = decoded(encode(record(fields=fields, afterImages=values)))
    assert result["after_images"] == {
        "c0": None,
        "c1": "-42",
        "c2": "中文",
        "c3": "-1234.50",
        "c4": "2.5",
        "c5": "2023-11-14 22:13:20.654321",
        "c6": "2024-02-29 23:59:58.123456",
        "c7": "2024-02-29 23:59:58.123456 +08:00",
        "c8": "AQEA",
        "c9": "POINT(1 2)",
        "c10": "AP8=",
        "c11": '{"a": 1}',
        "c12": None,
    }


@pytest.mark.parametrize(
    ("text", "expected_text"),
    [
        ("42", "42"),
        ("-9223372036854775809", "-9223372036854775809"),
        ("18446744073709551615", "18446744073709551615"),
    ],
)
def test_integer_is_its_text(text: str, expected_text: str) -> None:
    assert text_of(integer(text)) == expected_text


@pytest.mark.parametrize(
    "text", ["-12345678901234567890.123456789", "0.000", "99999999999999999999999999999999999.9"]
)
def test_decimal_is_its_text_as_sent(text: str) -> None:
    value = (NS + "Decimal", {"value": text, "precision": 38, "scale": 9})
    assert text_of(value) == text


@pytest.mark.parametrize(
    ("number", "expected_text"),
    [
        (3.0, "3.0"),
        (1.5, "1.5"),
        (0.1, "0.1"),
        (-2.5e-07, "-2.5e-07"),
        (1e16, "10000000000000000.0"),
        (-1e22, "-10000000000000000000000.0"),
        (-0.0, "-0.0"),
        (math.nan, "NaN"),
        (math.inf, "Infinity"),
        (-math.inf, "-Infinity"),
        (1.7976931348623157e308, f"{int(1.7976931348623157e308)}.0"),
    ],
)
def test_float_is_the_double_repr_with_integral_values_spelled_out(
    number: float, expected_text: str
) -> None:
    assert text_of((NS + "Float", {"value": number, "precision": 0, "scale": 0})) == expected_text


@pytest.mark.parametrize(
    ("data", "charset", "expected_text"),
    [
        ("héllo".encode(), "utf8", "héllo"),
        ("😀".encode(), "utf8mb4", "😀"),
        ("中文".encode(), "UTF-8", "中文"),
        ("中文".encode("gbk"), "gbk", "中文"),
        ("中文".encode("gb18030"), "gb18030", "中文"),
        (b"caf\xe9", "latin1", "café"),
        (b"\x80", "latin1", "€"),
        (b"\x81", "latin1", "\x81"),
        (b"\x80", "ISO-8859-1", "\x80"),
        ("ｶﾅ".encode("shift_jis"), "Shift_JIS", "ｶﾅ"),
        (b"\x00a", "utf16", "a"),
        (b"plain", "", "plain"),
        (b"\x00\xff", "binary", "AP8="),
        (b"\xff\xfe", "utf8", "//4="),
        (b"abc", "klingon", "YWJj"),
        (b"abc", "hex", "YWJj"),
        (b"\\ud800", "unicode_escape", b64(b"\\ud800")),
        (b"+AGE-", "UTF-7", "a"),
        (b"", "utf8mb4", ""),
    ],
)
def test_character_is_decoded_with_its_charset_or_else_base64(
    data: bytes, charset: str, expected_text: str
) -> None:
    assert text_of(character(data, charset)) == expected_text


@pytest.mark.parametrize(
    ("seconds", "micros", "expected_text"),
    [
        (0, 0, "1970-01-01 00:00:00.000000"),
        (1700000000, 123456, "2023-11-14 22:13:20.123456"),
        (-1, 500000, "1969-12-31 23:59:59.500000"),
        (-62135596800, 0, "0001-01-01 00:00:00.000000"),
    ],
)
def test_timestamp_is_utc_text_with_microseconds(
    seconds: int, micros: int, expected_text: str
) -> None:
    value = (NS + "Timestamp", {"timestamp": seconds, "millis": micros})
    assert text_of(value) == expected_text


@pytest.mark.parametrize(
    ("seconds", "micros", "reason"),
    [
        (0, 1_000_000, "Timestamp microseconds out of range: 1000000"),
        (0, -1, "Timestamp microseconds out of range: -1"),
        (10**15, 0, "Timestamp 1000000000000000 is outside the years 1-9999"),
    ],
)
def test_impossible_timestamp_is_an_error(seconds: int, micros: int, reason: str) -> None:
    value = (NS + "Timestamp", {"timestamp": seconds, "millis": micros})
    raw = encode(record(fields=[{"name": "v", "dataTypeNumber": 7}], afterImages=[value]))
    assert error_of(raw) == reason


@pytest.mark.parametrize(
    ("parts", "expected_text"),
    [
        (date_time(2024, 1, 2, 3, 4, 5), "2024-01-02 03:04:05"),
        (date_time(2024, 1, 2, 3, 4, 5, 0), "2024-01-02 03:04:05"),
        (date_time(2024, 1, 2, 3, 4, 5, 123456), "2024-01-02 03:04:05.123456"),
        (date_time(2024, 1, 2, 3, 4, 5, 5), "2024-01-02 03:04:05.000005"),
        (date_time(5, 1, 1, 0, 0, 0), "0005-01-01 00:00:00"),
        (date_time(0, 0, 0, 0, 0, 0), "0000-00-00 00:00:00"),
        (date_time(2024, 12, 31), "2024-12-31"),
        (date_time(hour=13, minute=14, second=15), "13:14:15"),
        (date_time(hour=13, minute=14, second=15, millis=500000), "13:14:15.500000"),
        (date_time(hour=-838, minute=-59, second=-59), "-838:59:59"),
        (date_time(hour=0, minute=-30, second=0), "-00:30:00"),
        (date_time(2024), "2024"),
        (date_time(), ""),
    ],
)
def test_mysql_date_time_is_wall_clock_text_of_its_parts(
    parts: dict[str, int | None], expected_text: str
) -> None:
    assert text_of((NS + "DateTime", parts)) == expected_text


@pytest.mark.parametrize(
    ("source_type", "position", "fraction", "expected_fraction"),
    [
        ("Oracle", "SCN:1234", 123456789, ".123456789"),
        ("Oracle", "SCN:1234", 123000000, ".123000"),
        ("SQLServer", "LSN:1", 5000, ".000005"),
        ("PostgreSQL", "0/16B6C50", 5, ".000005"),
        ("PostgreSQL", "0/16B6C50<->0/16B6C90", 5000, ".000005"),
        ("MySQL", "1@mysql-bin.000001<->2", 5000, ".000005"),
    ],
)
def test_date_time_fraction_unit_depends_on_the_source(
    source_type: str, position: str, fraction: int, expected_fraction: str
) -> None:
    value = (NS + "DateTime", date_time(2024, 1, 2, 3, 4, 5, fraction))
    text = text_of(
        value,
        source={"sourceType": source_type, "version": "1"},
        sourcePosition=position,
    )
    assert text == "2024-01-02 03:04:05" + expected_fraction


def test_date_time_fraction_out_of_range_is_an_error() -> None:
    value = (NS + "DateTime", date_time(2024, 1, 2, 3, 4, 5, 1_000_000))
    raw = encode(record(fields=[{"name": "v", "dataTypeNumber": 12}], afterImages=[value]))
    assert error_of(raw) == "DateTime fraction out of range: 1000000 microseconds"


@pytest.mark.parametrize(
    ("zone", "expected_text"),
    [
        ("+08:00", "2024-01-02 03:04:05.250000 +08:00"),
        ("Asia/Shanghai", "2024-01-02 03:04:05.250000 Asia/Shanghai"),
        ("", "2024-01-02 03:04:05.250000"),
    ],
)
def test_timestamp_with_time_zone_is_date_time_and_zone(zone: str, expected_text: str) -> None:
    moment = date_time(2024, 1, 2, 3, 4, 5, 250000)
    value = (NS + "TimestampWithTimeZone", {"value": moment, "timezone": zone})
    assert text_of(value) == expected_text


@pytest.mark.parametrize(
    ("value", "expected_text"),
    [
        ((NS + "BinaryObject", {"type": "BLOB", "value": b"\x00\x01\xfe\xff"}), "AAH+/w=="),
        ((NS + "BinaryObject", {"type": "BLOB", "value": b""}), ""),
        ((NS + "BinaryGeometry", {"type": "POINT", "value": b"\x00" * 4}), "AAAAAA=="),
        ((NS + "TextObject", {"type": "JSON", "value": '{"k": [1, 2]}'}), '{"k": [1, 2]}'),
        ((NS + "TextObject", {"type": "SET", "value": "a,b"}), "a,b"),
        (
            (NS + "TextGeometry", {"type": "LINESTRING", "value": "LINESTRING(0 0,1 1)"}),
            "LINESTRING(0 0,1 1)",
        ),
        ((NS + "EmptyObject", "NULL"), None),
        ((NS + "EmptyObject", "NONE"), None),
        (None, None),
    ],
)
def test_objects_geometries_and_empty_values(value: Any, expected_text: str | None) -> None:
    assert text_of(value) == expected_text


# --- bad input ---------------------------------------------------------------------------------


def test_null_is_null_without_error() -> None:
    assert dts_avro_json(None) == (None, None)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"", "empty message (a DTS filler record, not a Record)"),
        (b"\x00", "1-byte message (a DTS filler record, not a Record)"),
        (b"\x00\x00", "2-byte message (a DTS filler record, not a Record)"),
        ("text", "expected bytes, got str"),
    ],
)
def test_empty_filler_and_non_bytes_messages_are_errors(raw: object, reason: str) -> None:
    assert error_of(raw) == reason


def test_message_over_the_size_limit_is_not_decoded() -> None:
    too_big = bytes(dts_avro.MAX_MESSAGE_BYTES + 1)
    assert error_of(too_big) == (
        f"message of {len(too_big)} bytes is over the limit of {dts_avro.MAX_MESSAGE_BYTES}"
    )


def test_trailing_bytes_are_an_error() -> None:
    assert error_of(encode(record()) + b"\x00\x02") == "2 trailing byte(s) after the record"


def test_every_truncation_is_an_error_except_the_old_producer_layout() -> None:
    raw = encode(record())
    legacy_length = len(raw) - len(avro_long(BORN))
    for length in range(len(raw)):
        value, error = dts_avro_json(raw[:length])
        if length == legacy_length:
            assert error is None
            assert json.loads(value)["born_timestamp"] is None
        else:
            assert value is None
            assert error, length


def minimal_record_bytes() -> tuple[bytes, int]:
    """A BEGIN with every optional part empty, and the offset of its operation byte."""
    raw = encode(
        record(
            operation="BEGIN",
            objectName=None,
            processTimestamps=None,
            tags={},
            fields=None,
            afterImages=None,
            bornTimestamp=0,
        )
    )
    version = SOURCE_VERSION.encode()
    operation_at = raw.index(avro_long(len(version)) + version) + 1 + len(version)
    # operation, objectName, processTimestamps, tags, fields, before, after, born
    assert raw[operation_at:] == bytes([4 * 2, 0, 0, 0, 0, 0, 0, 0])
    return raw, operation_at


def replace(raw: bytes, at: int, new: bytes, old_length: int = 1) -> bytes:
    return raw[:at] + new + raw[at + old_length :]


@pytest.mark.parametrize(
    ("field_offset", "corrupt", "reason_start"),
    [
        (0, avro_long(17), "corrupt union or enum index"),  # operation enum has 17 symbols
        (0, avro_long(-1), "not the Avro encoding DTS writes"),  # -1 would read as INIT
        (4, avro_long(3), "corrupt union or enum index"),  # fields union has 3 branches
        (4, avro_long(2**40), "corrupt union or enum index"),
        (4, avro_long(-1), "not the Avro encoding DTS writes"),
        (3, avro_long(2**62), "message ends early"),  # tags map count
        (3, avro_long(-(2**62)), "message ends early"),
    ],
)
def test_corrupt_indexes_and_counts_are_errors(
    field_offset: int, corrupt: bytes, reason_start: str
) -> None:
    raw, operation_at = minimal_record_bytes()
    assert error_of(replace(raw, operation_at + field_offset, corrupt)).startswith(reason_start)


def after_images_at(one_column: dict[str, Any]) -> int:
    """Offset of the afterImages union index: the same record without them ends there + born."""
    without = encode({**one_column, "afterImages": None})
    return len(without) - len(avro_long(one_column["bornTimestamp"])) - 1


ONE_NULL_COLUMN = record(fields=[{"name": "a", "dataTypeNumber": 0}], afterImages=[None])


@pytest.mark.parametrize("item_index", [13, 200, -14])
def test_image_union_index_out_of_range_is_an_error(item_index: int) -> None:
    raw = encode(ONE_NULL_COLUMN)
    at = after_images_at(ONE_NULL_COLUMN)
    assert raw[at : at + 4] == bytes([2 * 2, 1 * 2, 0, 0])  # array branch, 1 item, null, end
    reason = error_of(replace(raw, at + 2, avro_long(item_index)))
    assert reason.startswith("corrupt union or enum index")


def test_negative_image_union_index_that_fastavro_accepts_is_an_error() -> None:
    one_empty = record(
        fields=[{"name": "a", "dataTypeNumber": 0}], afterImages=[(NS + "EmptyObject", "NULL")]
    )
    raw = encode(one_empty)
    at = after_images_at(one_empty) + 2
    assert raw[at] == 12 * 2  # EmptyObject is the last of the 13 branches
    corrupt = replace(raw, at, avro_long(-1))
    # fastavro alone reads index -1 as the last branch and succeeds:
    alone = fastavro.schemaless_reader(
        io.BytesIO(corrupt), dts_record_schema(), return_named_type=True
    )
    assert alone["afterImages"] == [(NS + "EmptyObject", "NULL")]
    assert error_of(corrupt) == (
        f"not the Avro encoding DTS writes (from byte {at}): a corrupt union or enum index, an "
        "over-long varint, a blocked array or map, or a repeated map key"
    )


@pytest.mark.parametrize("length", [2**62, 2**63 - 1, -5, -(2**63)])
def test_absurd_string_length_is_an_error_without_allocating_it(length: int) -> None:
    raw = encode(record())
    text = POSITION.encode()
    at = raw.index(avro_long(len(text)) + text)
    reason = error_of(replace(raw, at, avro_long(length)))
    assert reason.startswith("message ends early")


def test_huge_image_count_is_an_error() -> None:
    raw = encode(ONE_NULL_COLUMN)
    at = after_images_at(ONE_NULL_COLUMN) + 1
    # the two null items are read, then the bornTimestamp bytes as items: an index out of range
    reason = error_of(replace(raw, at, avro_long(2**62)))
    assert reason.startswith(("message ends early", "corrupt union or enum index"))


def test_over_long_varint_is_rejected() -> None:
    raw = encode(record())
    assert raw[0] == 2  # version 1
    assert error_of(replace(raw, 0, b"\x82\x00")).startswith("not the Avro encoding DTS writes")


def test_blocked_array_is_rejected_as_not_written_by_dts() -> None:
    raw = encode(ONE_NULL_COLUMN)
    at = after_images_at(ONE_NULL_COLUMN) + 1
    # one block of -1 items (its byte size, 1, follows), then the null item
    blocked = replace(raw, at, avro_long(-1) + avro_long(1))
    assert error_of(blocked).startswith("not the Avro encoding DTS writes")


def test_repeated_map_key_is_rejected() -> None:
    raw = encode(record(tags={"k": "1", "j": "2"}))
    corrupt = raw.replace(b"\x02j\x022", b"\x02k\x022")
    assert corrupt != raw
    assert error_of(corrupt).startswith("not the Avro encoding DTS writes")


def test_invalid_utf8_in_a_string_is_an_error() -> None:
    raw = encode(record())
    corrupt = raw.replace(b"shop.orders", b"shop.order\xff")
    assert error_of(corrupt).startswith("a string is not valid UTF-8")


def check_one_result(raw: bytes) -> None:
    """Never raises; exactly one of value and reason; any value is the documented JSON."""
    value, error = dts_avro_json(raw)
    assert (value is None) != (error is None)
    if value is not None:
        assert list(json.loads(value)) == KEYS


@MODEST
@given(st.binary(max_size=400))
def test_random_bytes_never_raise(raw: bytes) -> None:
    check_one_result(raw)


@MODEST
@given(st.data())
def test_edited_records_never_raise(data: st.DataObject) -> None:
    raw = bytearray(encode(record(operation="UPDATE", beforeImages=record()["afterImages"])))
    for _ in range(data.draw(st.integers(1, 4))):
        if not raw:
            break
        at = data.draw(st.integers(0, len(raw) - 1))
        edit = data.draw(st.sampled_from(["set", "insert", "delete"]))
        if edit == "delete":
            del raw[at]
        else:
            byte = data.draw(st.integers(0, 255))
            if edit == "set":
                raw[at] = byte
            else:
                raw.insert(at, byte)
    check_one_result(bytes(raw))


def test_empty_object_in_a_before_image_decodes() -> None:
    """The schema defines the image types inline in `beforeImages`: a DELETE of a row with an
    EmptyObject value must decode (and pass the re-encoding check) like an INSERT does."""
    raw = encode(record(operation="DELETE", beforeImages=[integer("7"), "NULL"], afterImages=None))
    assert decoded(raw)["before_images"] == {"id": "7", "note": None}
