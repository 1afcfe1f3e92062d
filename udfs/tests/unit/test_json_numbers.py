"""json_numbers_as_text: numbers Spark would respell become strings of their exact text."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cdc_lake.json_numbers import json_numbers_as_text, respelled_by_spark


@pytest.mark.parametrize(
    ("number", "respelled"),
    [
        ("1.50", True), ("1.0", True), ("1E+3", True), ("2e-5", True), ("-0.10", True),
        ("0.1234567890123456", True), ("123456789012345.6789", True),
        ("1.5", False), ("-0.25", False), ("12345678901234567890", False), ("0", False),
        ("3.14159", False),
    ],
)  # fmt: skip
def test_which_numbers_spark_would_respell(number: str, respelled: bool) -> None:
    assert respelled_by_spark(number) is respelled


def test_a_flink_canal_message_keeps_its_numbers_and_its_shape() -> None:
    text = (
        '{"data":[{"id":101,"price":1.50,"weight":3.14,"big":1E+3,"note":"costs 1.50 "}],'
        '"es":1589373560000,"old":null,"type":"INSERT"}'
    )
    converted, error = json_numbers_as_text(text)
    assert error is None
    assert json.loads(converted) == {
        "data": [
            {"id": 101, "price": "1.50", "weight": 3.14, "big": "1E+3", "note": "costs 1.50 "}
        ],
        "es": 1589373560000, "old": None, "type": "INSERT",
    }  # fmt: skip


@pytest.mark.parametrize(
    "text",
    [None, "", "{not json", '{"a": 01.50}', '{"s": "\\"1.50\\""}', "[1.0, 2]", '"x"'],
)
def test_strings_integers_and_bad_json_stay_as_they_are(text: str | None) -> None:
    converted, error = json_numbers_as_text(text)
    assert error is None
    if text == "[1.0, 2]":
        assert converted == '["1.0", 2]'
    elif text == '{"a": 01.50}':
        assert converted == '{"a": 0"1.50"}'  # still not JSON: still rejected
    else:
        assert converted == text


@given(st.recursive(
    st.none() | st.booleans() | st.integers() | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
))  # fmt: skip
def test_any_json_stays_json_with_the_same_structure(value: object) -> None:
    text = json.dumps(value)
    converted, _ = json_numbers_as_text(text)
    assert json.loads(converted) == json.loads(text, parse_float=lambda token: (
        token if respelled_by_spark(token) else float(token)
    ))  # fmt: skip
