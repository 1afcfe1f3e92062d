"""`decode_byte_list` turns DRS byte lists into base64; bad input must give a reason, never raise.

It runs inside a Spark task through a vectorised UDF, where an exception would fail the whole
dbt run instead of sending one message to the rejected-messages model.
"""

from __future__ import annotations

import base64

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdc_lake.byte_codecs import decode_byte_list

MODEST = settings(max_examples=200, deadline=None)


def java_arrays_to_string(values: list[int]) -> str:
    """What Java's `Arrays.toString(byte[])` prints: `[1, -2, 3]`, `[]` when empty."""
    return "[" + ", ".join(str(value) for value in values) + "]"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[106, 103, 111]", "amdv"),
        ("[]", ""),
        ("[-1, -128, 127]", b64(bytes([0xFF, 0x80, 0x7F]))),
        ("[0, 128, 255]", b64(bytes([0, 128, 255]))),
        ("[-1, 255]", b64(b"\xff\xff")),
        ("[0]", b64(b"\x00")),
    ],
)
def test_decodes_documented_examples(text: str, expected: str) -> None:
    assert decode_byte_list(text) == (expected, None)


def test_null_is_null_without_error() -> None:
    assert decode_byte_list(None) == (None, None)


@pytest.mark.parametrize(
    "text",
    [
        "[106,103,111]",
        "  [106, 103, 111]  ",
        "[ 106 ,103 ,  111 ]",
        "[\n  106,\n  103,\n  111\n]",
        "[106,\t103,\t111]",
    ],
)
def test_whitespace_anywhere_is_accepted(text: str) -> None:
    assert decode_byte_list(text) == ("amdv", None)


@pytest.mark.parametrize("text", ["[ ]", " [] ", "[\n]"])
def test_blank_list_is_empty_bytes(text: str) -> None:
    assert decode_byte_list(text) == ("", None)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("106, 103", "enclosed in [ ]"),
        ("[106, 103", "enclosed in [ ]"),
        ("106, 103]", "enclosed in [ ]"),
        ("", "enclosed in [ ]"),
        ("amdv", "enclosed in [ ]"),
        ("[106, abc, 111]", "item 1 is not an integer: 'abc'"),
        ("[1.5]", "item 0 is not an integer: '1.5'"),
        ("[0x10]", "item 0 is not an integer"),
        ("[256]", "item 0 is out of the byte range -128..255: 256"),
        ("[1, -129]", "item 1 is out of the byte range -128..255: -129"),
        ("[106, 103,]", "item 2 is not an integer: ''"),
        ("[106,, 103]", "item 1 is not an integer: ''"),
        ("[,]", "item 0 is not an integer: ''"),
    ],
)
def test_bad_input_gives_a_readable_reason(text: str, words: str) -> None:
    value, reason = decode_byte_list(text)
    assert value is None
    assert reason is not None
    assert words in reason
    assert "\n" not in reason


def test_reason_quotes_only_the_start_of_a_long_bad_item() -> None:
    _, reason = decode_byte_list("[" + "x" * 500 + "]")
    assert reason is not None
    assert len(reason) < 80


byte_values = st.lists(st.integers(min_value=-128, max_value=255), max_size=64)


@MODEST
@given(byte_values)
def test_java_formatted_lists_decode_to_base64_of_the_bytes(values: list[int]) -> None:
    expected = b64(bytes(value & 0xFF for value in values))
    assert decode_byte_list(java_arrays_to_string(values)) == (expected, None)


def assert_value_xor_error(result: tuple[str | None, str | None]) -> None:
    value, error = result
    assert (value is None) != (error is None), result


@MODEST
@given(st.text())
def test_arbitrary_text_never_raises(text: str) -> None:
    assert_value_xor_error(decode_byte_list(text))


@MODEST
@given(st.data())
def test_truncated_lists_never_raise(data: st.DataObject) -> None:
    text = java_arrays_to_string(data.draw(byte_values, label="values"))
    cut = data.draw(st.integers(min_value=0, max_value=len(text)), label="cut")
    assert_value_xor_error(decode_byte_list(text[:cut]))


@pytest.mark.parametrize("text", ["[1_0]", "[\uff11]", "[\u0661]"])
def test_only_ascii_decimal_items_are_accepted(text: str) -> None:
    assert decode_byte_list(text)[0] is None
