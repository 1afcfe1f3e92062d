"""`mongo_shell_to_json` and `mongo_id_text`: DRS DDS shell-style JSON to strict Extended JSON.

The exact outputs matter because the staging model reads them with `from_json` and keys rows by
`_id`; "never raises" matters because the functions run inside a Spark task, where an exception
would fail the whole dbt run instead of sending one message to the rejected-messages model.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cdc_lake.mongo_json import MAX_DEPTH, MAX_INPUT_CHARS, mongo_id_text, mongo_shell_to_json

MODEST = settings(max_examples=300, deadline=None)

OID = "64650cf67dc36a464e76e583"
OID_JSON = f'{{"$oid":"{OID}"}}'


def converted(text: str) -> str:
    """The strict JSON of text that must convert; fails the test with the reason otherwise."""
    result, reason = mongo_shell_to_json(text)
    assert reason is None, reason
    assert result is not None
    return result


def exactly_one(pair: tuple[str | None, str | None]) -> None:
    """A non-NULL input gives a value or a reason, never both and never neither."""
    result, reason = pair
    assert (result is None) != (reason is None), pair


# The `value` / `where` strings of every DDS example in huawei-drs-kafka-formats.txt (table 3),
# as they read once the message's own JSON is decoded.
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            f'{{"_id": ObjectId("{OID}"), "c1": "baz", "tags": ["mongodb", "database", "NoSQL"]}}',
            f'{{"_id":{OID_JSON},"c1":"baz","tags":["mongodb","database","NoSQL"]}}',
            id="insert-value",
        ),
        pytest.param(
            f'{{"_id": ObjectId("{OID}"), "c1": "sss"}}',
            f'{{"_id":{OID_JSON},"c1":"sss"}}',
            id="replace-value",
        ),
        pytest.param(
            f'{{"_id": ObjectId("{OID}")}}',
            f'{{"_id":{OID_JSON}}}',
            id="replace-update-where-and-delete-value",
        ),
        pytest.param('{"$set": {"c1": "aaa"}}', '{"$set":{"c1":"aaa"}}', id="update-set-value"),
        pytest.param(
            '{"$unset": {"c1": true}, "$set": {"column1": "aaa"}}',
            '{"$unset":{"c1":true},"$set":{"column1":"aaa"}}',
            id="update-unset-set-value",
        ),
    ],
)
def test_vendor_dds_examples(text: str, expected: str) -> None:
    assert mongo_shell_to_json(text) == (expected, None)


def test_vendor_message_value_decoded_from_the_message_json() -> None:
    """The insert example exactly as the Kafka message carries it: a JSON string field."""
    message = (
        '{"id": 256, "op": "INSERT", "dbType": "MongoDB", "db": "ljx", "coll": "ljx", '
        '"value": "{\\"_id\\": ObjectId(\\"64650cf67dc36a464e76e583\\"), \\"c1\\": \\"baz\\", '
        '\\"tags\\": [\\"mongodb\\", \\"database\\", \\"NoSQL\\"]}", "where": null}'
    )
    record = json.loads(message)
    assert json.loads(converted(record["value"])) == {
        "_id": {"$oid": OID},
        "c1": "baz",
        "tags": ["mongodb", "database", "NoSQL"],
    }
    assert mongo_shell_to_json(record["where"]) == (None, None)
    assert mongo_id_text(record["value"]) == (OID, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # ObjectId: hex in lower case, either quote, optional `new`.
        (f'ObjectId("{OID}")', OID_JSON),
        (f"ObjectId('{OID.upper()}')", OID_JSON),
        (f'new ObjectId( "{OID}" )', OID_JSON),
        # Dates: ISO-8601 UTC with milliseconds.
        ('ISODate("2023-05-17T17:26:46.123Z")', '{"$date":"2023-05-17T17:26:46.123Z"}'),
        ('ISODate("2023-05-17T17:26:46Z")', '{"$date":"2023-05-17T17:26:46.000Z"}'),
        ('ISODate("2023-05-17T17:26:46.123")', '{"$date":"2023-05-17T17:26:46.123Z"}'),
        ('ISODate("2023-05-17T17:26:46.5+08:00")', '{"$date":"2023-05-17T09:26:46.500Z"}'),
        ('ISODate("2023-05-17T17:26:46-0130")', '{"$date":"2023-05-17T18:56:46.000Z"}'),
        ('ISODate("2023-05-17T17:26:46.123999Z")', '{"$date":"2023-05-17T17:26:46.123Z"}'),
        ('ISODate("2023-05-17 17:26")', '{"$date":"2023-05-17T17:26:00.000Z"}'),
        ('ISODate("2023-05-17")', '{"$date":"2023-05-17T00:00:00.000Z"}'),
        ("new Date(1684344406123)", '{"$date":"2023-05-17T17:26:46.123Z"}'),
        ("Date(0)", '{"$date":"1970-01-01T00:00:00.000Z"}'),
        ("new Date(-1)", '{"$date":"1969-12-31T23:59:59.999Z"}'),
        ("new Date('2023-05-17T17:26:46.123Z')", '{"$date":"2023-05-17T17:26:46.123Z"}'),
        ('ISODate("0099-01-01T00:00:00Z")', '{"$date":"0099-01-01T00:00:00.000Z"}'),
        # Outside years 1..9999 there is no ISO form: canonical epoch milliseconds.
        ("new Date(253402300800000)", '{"$date":{"$numberLong":"253402300800000"}}'),
        ('ISODate("0001-01-01T00:00:00+01:00")', '{"$date":{"$numberLong":"-62135600400000"}}'),
        # 64-bit and 32-bit integers, canonical; number or string argument.
        ("NumberLong(123)", '{"$numberLong":"123"}'),
        ('NumberLong("123")', '{"$numberLong":"123"}'),
        ('NumberLong("9223372036854775807")', '{"$numberLong":"9223372036854775807"}'),
        ("NumberLong(-9223372036854775808)", '{"$numberLong":"-9223372036854775808"}'),
        ("NumberInt(5)", '{"$numberInt":"5"}'),
        ("NumberInt('-2147483648')", '{"$numberInt":"-2147483648"}'),
        # Decimals keep their text exactly.
        ('NumberDecimal("1.10")', '{"$numberDecimal":"1.10"}'),
        ("NumberDecimal(1.10)", '{"$numberDecimal":"1.10"}'),
        ('NumberDecimal("-1.5E+3")', '{"$numberDecimal":"-1.5E+3"}'),
        (
            'NumberDecimal("12345678901234567890.123456789")',
            '{"$numberDecimal":"12345678901234567890.123456789"}',
        ),
        ('NumberDecimal("NaN")', '{"$numberDecimal":"NaN"}'),
        ('NumberDecimal("-Infinity")', '{"$numberDecimal":"-Infinity"}'),
        # Timestamps, binary, UUID.
        ("Timestamp(1684314406, 1)", '{"$timestamp":{"t":1684314406,"i":1}}'),
        ("Timestamp(4294967295,4294967295)", '{"$timestamp":{"t":4294967295,"i":4294967295}}'),
        ('BinData(0, "amdv")', '{"$binary":{"base64":"amdv","subType":"00"}}'),
        (
            'new BinData(4, "uE2/4v5MSVOiJZkOo3APKQ==")',
            '{"$binary":{"base64":"uE2/4v5MSVOiJZkOo3APKQ==","subType":"04"}}',
        ),
        ('BinData(128, "")', '{"$binary":{"base64":"","subType":"80"}}'),
        ('BinData(0, "QR==")', '{"$binary":{"base64":"QQ==","subType":"00"}}'),
        (
            'UUID("b84dbfe2-fe4c-4953-a225-990ea3700f29")',
            '{"$binary":{"base64":"uE2/4v5MSVOiJZkOo3APKQ==","subType":"04"}}',
        ),
        (
            "UUID('B84DBFE2FE4C4953A225990EA3700F29')",
            '{"$binary":{"base64":"uE2/4v5MSVOiJZkOo3APKQ==","subType":"04"}}',
        ),
        # Keys, undefined, regular expressions, special doubles.
        ("MinKey", '{"$minKey":1}'),
        ("MaxKey", '{"$maxKey":1}'),
        ("MinKey()", '{"$minKey":1}'),
        ("new MaxKey", '{"$maxKey":1}'),
        ("undefined", "null"),
        ("/^pass$/i", '{"$regularExpression":{"pattern":"^pass$","options":"i"}}'),
        ("/a\\/b/", '{"$regularExpression":{"pattern":"a/b","options":""}}'),
        ("/[/]\\d+/xmi", '{"$regularExpression":{"pattern":"[/]\\\\d+","options":"imx"}}'),
        ('/"q"/s', '{"$regularExpression":{"pattern":"\\"q\\"","options":"s"}}'),
        ("NaN", '{"$numberDouble":"NaN"}'),
        ("Infinity", '{"$numberDouble":"Infinity"}'),
        ("-Infinity", '{"$numberDouble":"-Infinity"}'),
    ],
)
def test_constructors(text: str, expected: str) -> None:
    assert mongo_shell_to_json(text) == (expected, None)
    # Inside a document and an array too, with whitespace around every token.
    assert mongo_shell_to_json(f"{{ v :\n {text} ,\n w : [ {text} ] }}") == (
        f'{{"v":{expected},"w":[{expected}]}}',
        None,
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{}", "{}"),
        ("[]", "[]"),
        ("[ ]", "[]"),
        ('"x"', '"x"'),
        ("true", "true"),
        ("null", "null"),
        ("-0", "-0"),
        # Numbers keep their text: no float or int round trip.
        ("123456789012345678901234567890", "123456789012345678901234567890"),
        ("1.10", "1.10"),
        ("1.0E10", "1.0E10"),
        ("-2.5e-7", "-2.5e-7"),
        (
            "{a: {b: {c: [1, [2, [3, {d: NumberLong(4)}]]]}}, e: []}",
            '{"a":{"b":{"c":[1,[2,[3,{"d":{"$numberLong":"4"}}]]]}},"e":[]}',
        ),
        # Key order is kept; a duplicate key keeps its first place and its last value.
        ('{"z": 1, "a": 2, "z": 3}', '{"z":3,"a":2}'),
        # Unquoted keys: identifiers, `$`, non-ASCII letters; quoted dotted paths.
        (
            "{$set: {'a.b': 1, _id: 2, été: 3, x1$: 4}, $unset: {c: ''}}",
            '{"$set":{"a.b":1,"_id":2,"été":3,"x1$":4},"$unset":{"c":""}}',
        ),
        # Existing Extended JSON is an ordinary document.
        (f'{{"_id": {{"$oid": "{OID}"}}}}', f'{{"_id":{OID_JSON}}}'),
    ],
)
def test_documents_arrays_and_numbers(text: str, expected: str) -> None:
    assert mongo_shell_to_json(text) == (expected, None)


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        ("'single'", "single"),
        ("'say \"hi\"'", 'say "hi"'),
        ("'it\\'s'", "it's"),
        ('"quote \\" backslash \\\\ slash \\/"', 'quote " backslash \\ slash /'),
        ('"a\\nb\\tc\\rd\\be\\ff\\vg"', "a\nb\tc\rd\be\ff\vg"),
        ('"caf\\u00e9 \\u00E9"', "café é"),
        ('"\\ud83d\\ude00"', "\U0001f600"),
        ('"😀 数据"', "😀 数据"),
        ('"\\x41\\0"', "A\0"),
        ('"line \\\ncontinued"', "line continued"),
        ('"\\u0001"', "\x01"),
    ],
)
def test_strings_and_escapes(text: str, decoded: str) -> None:
    result = converted(text)
    assert json.loads(result) == decoded
    # Re-escaped as JSON would: non-ASCII kept as UTF-8, control characters escaped.
    assert result == json.dumps(decoded, ensure_ascii=False)


def test_whitespace_and_newlines_anywhere() -> None:
    text = (
        '\n\t{ \r\n "_id"\n:\tObjectId (\n "' + OID + '" \n) ,\n'
        "  tags : [\n 'a' ,\n\n 'b'\n ] ,\n d\n:\nnew\n  Date ( 0 )\n}\n\n"
    )
    assert mongo_shell_to_json(text) == (
        f'{{"_id":{OID_JSON},"tags":["a","b"],"d":{{"$date":"1970-01-01T00:00:00.000Z"}}}}',
        None,
    )


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty input"),
        (" \n\t ", "empty input"),
        ('{"a": 1', "expected ',' or '}', found the end of the input (unbalanced?)"),
        ('{"a": [1, 2}', "expected ',' or ']', found '}' (unbalanced?)"),
        ("[1, 2", "expected ',' or ']', found the end of the input"),
        ("{", "expected a key (a string or an identifier), found the end of the input"),
        ('{"a": 1}}', "unexpected text after the value: '}' (at offset 8)"),
        ("[1]]", "unexpected text after the value: ']'"),
        ('{"a": 1} trailing', "unexpected text after the value: 'trailing' (at offset 9)"),
        ('{"a": "b', "unterminated string (at offset 6)"),
        ("{'a': 'b}", "unterminated string"),
        ('"a\nb"', "line break '\\n' inside a string (unterminated string?)"),
        ('"a\x01"', "unescaped control character"),
        ('"\\q"', "invalid escape '\\\\q' in a string"),
        ('"\\u12"', "invalid escape '\\\\u' in a string"),
        ('"\\ud800"', "lone UTF-16 surrogate"),
        ('ObjectId("64650cf67dc36a464e76e58")', "ObjectId needs 24 hex digits, got"),
        ('ObjectId("64650cf67dc36a464e76e58g")', "ObjectId needs 24 hex digits"),
        ("ObjectId(12)", "ObjectId takes one string argument"),
        ("ObjectId", "ObjectId must be called with arguments in ( )"),
        ("Foo(1)", "unknown constructor or identifier 'Foo' (at offset 0)"),
        ("{a: bar}", "unknown constructor or identifier 'bar' (at offset 4)"),
        ("new Foo(1)", "unknown constructor or identifier 'Foo'"),
        ("Long(1)", "unknown constructor or identifier 'Long'"),
        ("{a: 1,}", "trailing comma before '}'"),
        ("[1,]", "trailing comma before ']'"),
        ("{1: 2}", "expected a key (a string or an identifier), found '1'"),
        ("{a 1}", "expected ':' after a key, found '1'"),
        ("[01]", "malformed number '01"),
        ("[1.]", "malformed number '1."),
        ("[.5]", "expected a value, found '.'"),
        ("[-NaN]", "malformed number"),
        ("NumberLong(9223372036854775808)", "NumberLong value 9223372036854775808 is outside"),
        ("NumberLong(1.5)", "NumberLong needs an integer, got '1.5'"),
        ("NumberInt(2147483648)", "NumberInt value 2147483648 is outside"),
        ('NumberDecimal("1,5")', "NumberDecimal needs a decimal number"),
        ("Timestamp(1)", "Timestamp takes two integers (seconds, increment)"),
        ("Timestamp(-1, 0)", "Timestamp value -1 is outside 0..4294967295"),
        ('BinData(0, "a!==")', "BinData data is not valid base64"),
        ('BinData(0, "abc")', "BinData data is not valid base64"),
        ('BinData(256, "")', "BinData subtype value 256 is outside 0..255"),
        ('BinData("0", "")', "BinData takes a subtype number and a base64 string"),
        ('UUID("1234")', "UUID needs 32 hex digits"),
        ("new Date()", "a date without an argument means 'now'"),
        ("Date(1, 2)", "a date takes one argument"),
        ("new Date(1.5)", "epoch milliseconds needs an integer"),
        ('ISODate("yesterday")', "not an ISO-8601 date: 'yesterday'"),
        ('ISODate("2023-02-30")', "impossible date '2023-02-30'"),
        ('ISODate("2023-05-17T10:00+24:00")', "bad UTC offset"),
        ("MinKey(1)", "MinKey takes no arguments"),
        ("ObjectId(x)", "arguments of ObjectId must be strings or numbers, found 'x'"),
        ('ObjectId("' + OID + '"', "expected ',' or ')' in the arguments of ObjectId"),
        ("/abc/g", "regular expression flag 'g' has no MongoDB equivalent"),
        ("//comment\n1", "unterminated or empty regular expression (comments are not accepted)"),
        ("/abc", "unterminated or empty regular expression"),
        ("new", "expected a constructor after 'new'"),
        ("@", "expected a value, found '@'"),
    ],
)
def test_bad_inputs_give_readable_reasons(text: str, reason: str) -> None:
    result, got = mongo_shell_to_json(text)
    assert result is None
    assert got is not None
    assert reason in got


def test_null_is_null() -> None:
    assert mongo_shell_to_json(None) == (None, None)
    assert mongo_id_text(None) == (None, None)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f'{{"_id": ObjectId("{OID}"), "c1": "sss"}}', OID),
        (f"{{_id: ObjectId('{OID.upper()}')}}", OID),
        (f'{{"_id": {{"$oid": "{OID}"}}}}', OID),
        ('{"_id": "user-1"}', "user-1"),
        ('{"_id": "caf\\u00e9"}', "café"),
        ("{_id: 42}", "42"),
        ("{_id: 123456789012345678901234567890}", "123456789012345678901234567890"),
        ("{_id: 1.50}", "1.50"),
        ("{_id: NumberLong(42)}", "42"),
        ('{_id: NumberLong("42")}', "42"),
        ("{_id: NumberInt(7)}", "7"),
        ('{_id: NumberDecimal("1.10")}', "1.10"),
        ('{"_id": {"$numberLong": "42"}}', "42"),
        ('{_id: {a: 1, b: [ObjectId("' + OID + '")]}}', f'{{"a":1,"b":[{OID_JSON}]}}'),
        ("{_id: Timestamp(1, 2)}", '{"$timestamp":{"t":1,"i":2}}'),
        ('{_id: {"$oid": "not-hex"}}', '{"$oid":"not-hex"}'),
        ("{_id: true}", "true"),
        ("{_id: null}", "null"),
        ("{a: 1, _id: 'first', b: 2, _id: 'last'}", "last"),
        ('{"x": {"_id": 1}, "_id": 2}', "2"),
    ],
)
def test_id_text(text: str, expected: str) -> None:
    assert mongo_id_text(text) == (expected, None)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('{"$set": {"c1": "aaa"}}', "the document has no _id"),
        ('{"x": {"_id": 1}}', "the document has no _id"),
        (f'[{{"_id": ObjectId("{OID}")}}]', "not a document"),
        ('"_id"', "not a document"),
        ('{"_id": ObjectId("nope")}', "ObjectId needs 24 hex digits"),
        ("", "empty input"),
    ],
)
def test_id_text_reasons(text: str, reason: str) -> None:
    result, got = mongo_id_text(text)
    assert result is None
    assert got is not None
    assert reason in got


def test_deep_nesting_is_a_depth_error_not_a_recursion_error() -> None:
    for text in ("[" * 100_000, "{a:" * 100_000, "[{a:" * 50_000, "[" * 100_000 + "]" * 100_000):
        result, reason = mongo_shell_to_json(text)
        assert result is None
        assert reason is not None
        assert reason.startswith(f"nesting deeper than {MAX_DEPTH} levels (at offset ")
        assert mongo_id_text(text)[1] == reason


def test_nesting_up_to_the_limit_is_accepted() -> None:
    inner = f'ObjectId("{OID}")'
    deepest = "[" * MAX_DEPTH + inner + "]" * MAX_DEPTH
    assert mongo_shell_to_json(deepest) == ("[" * MAX_DEPTH + OID_JSON + "]" * MAX_DEPTH, None)
    too_deep = "[" + deepest + "]"
    assert (
        mongo_shell_to_json(too_deep)[1]
        == f"nesting deeper than {MAX_DEPTH} levels (at offset {MAX_DEPTH})"
    )


def test_input_longer_than_the_limit_is_reported() -> None:
    text = '"' + "a" * MAX_INPUT_CHARS + '"'
    assert mongo_shell_to_json(text) == (
        None,
        f"input longer than {MAX_INPUT_CHARS} characters ({MAX_INPUT_CHARS + 2})",
    )


# A document with every kind of value, for the truncation test.
RICH_DOCUMENT = (
    f'{{"_id": ObjectId("{OID}"), name: \'Sally \\u00e9\\\'s\', "age": 25, '
    '"created": ISODate("2023-05-17T17:26:46.123Z"), "d": new Date(1684344406123), '
    '"n": NumberLong("1735934393769"), "i": NumberInt(5), "dec": NumberDecimal("3.14"), '
    '"ts": Timestamp(1684314406, 1), "bin": BinData(0, "uE2/4v5MSVOiJZkOo3APKQ=="), '
    '"uuid": UUID("b84dbfe2-fe4c-4953-a225-990ea3700f29"), "min": MinKey, "max": MaxKey, '
    '"u": undefined, "re": /^pa\\/ss$/i, "nan": NaN, "inf": -Infinity, "big": 1.0E300, '
    '"arr": [1, "two", [3, {"four": null}], true, false], "$set": {"a.b": 1}}'
)


def test_rich_document() -> None:
    assert json.loads(converted(RICH_DOCUMENT)) == {
        "_id": {"$oid": OID},
        "name": "Sally é's",
        "age": 25,
        "created": {"$date": "2023-05-17T17:26:46.123Z"},
        "d": {"$date": "2023-05-17T17:26:46.123Z"},
        "n": {"$numberLong": "1735934393769"},
        "i": {"$numberInt": "5"},
        "dec": {"$numberDecimal": "3.14"},
        "ts": {"$timestamp": {"t": 1684314406, "i": 1}},
        "bin": {"$binary": {"base64": "uE2/4v5MSVOiJZkOo3APKQ==", "subType": "00"}},
        "uuid": {"$binary": {"base64": "uE2/4v5MSVOiJZkOo3APKQ==", "subType": "04"}},
        "min": {"$minKey": 1},
        "max": {"$maxKey": 1},
        "u": None,
        "re": {"$regularExpression": {"pattern": "^pa/ss$", "options": "i"}},
        "nan": {"$numberDouble": "NaN"},
        "inf": {"$numberDouble": "-Infinity"},
        "big": 1.0e300,
        "arr": [1, "two", [3, {"four": None}], True, False],
        "$set": {"a.b": 1},
    }


def test_every_truncation_gives_a_value_or_a_reason() -> None:
    for end in range(len(RICH_DOCUMENT)):
        exactly_one(mongo_shell_to_json(RICH_DOCUMENT[:end]))
        exactly_one(mongo_id_text(RICH_DOCUMENT[:end]))


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(), children),
    max_leaves=25,
)


@MODEST
@given(value=JSON_VALUES, ensure_ascii=st.booleans(), indent=st.sampled_from([None, 0, 2]))
def test_strict_json_round_trips(value: Any, ensure_ascii: bool, indent: int | None) -> None:
    """Strict JSON is shell JSON too: it comes back as the same value, compact and in UTF-8."""
    text = json.dumps(value, ensure_ascii=ensure_ascii, indent=indent)
    result = converted(text)
    assert result == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert json.loads(result) == value


def single_quoted(text: str) -> str:
    """`text` as a mongo shell single-quoted string literal."""
    body = json.dumps(text)[1:-1].replace('\\"', '"').replace("'", "\\'")
    return f"'{body}'"


IDENTIFIERS = st.from_regex(r"[A-Za-z_$][A-Za-z0-9_$]{0,8}", fullmatch=True)
# Leaves as (shell text, the Python value its strict JSON must load as).
SHELL_LEAVES = st.one_of(
    st.text().map(lambda text: (json.dumps(text), text)),
    st.text().map(lambda text: (single_quoted(text), text)),
    st.integers().map(lambda number: (str(number), number)),
    st.from_regex(r"[0-9a-fA-F]{24}", fullmatch=True).map(
        lambda hex_text: (f"ObjectId('{hex_text}')", {"$oid": hex_text.lower()})
    ),
    st.integers(-(2**63), 2**63 - 1).map(
        lambda number: (f"NumberLong({number})", {"$numberLong": str(number)})
    ),
    st.datetimes(min_value=dt.datetime(1, 1, 1), max_value=dt.datetime(9999, 12, 31)).map(
        lambda moment: (
            f'ISODate("{moment.isoformat(timespec="milliseconds")}Z")',
            {"$date": moment.isoformat(timespec="milliseconds") + "Z"},
        )
    ),
    st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1)).map(
        lambda pair: (
            f"Timestamp({pair[0]}, {pair[1]})",
            {"$timestamp": {"t": pair[0], "i": pair[1]}},
        )
    ),
    st.sampled_from([("MinKey", {"$minKey": 1}), ("undefined", None), ("true", True)]),
)


def shell_containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = IDENTIFIERS | st.text().map(json.dumps) | st.text().map(single_quoted)
    arrays = st.lists(children, max_size=4).map(
        lambda items: ("[" + ",\n ".join(text for text, _ in items) + "]", [v for _, v in items])
    )
    documents = st.dictionaries(keys, children, max_size=4).map(
        lambda members: (
            "{" + ", ".join(f"{key}: {text}" for key, (text, _) in members.items()) + "}",
            {key_value(key): value for key, (_, value) in members.items()},
        )
    )
    return arrays | documents


def key_value(key_text: str) -> str:
    """The key a shell key token stands for (identifiers stand for themselves)."""
    if key_text[0] == "'":
        return json.loads('"' + key_text[1:-1].replace("\\'", "'").replace('"', '\\"') + '"')
    if key_text[0] == '"':
        return json.loads(key_text)
    return key_text


SHELL_VALUES = st.recursive(SHELL_LEAVES, shell_containers, max_leaves=15)


@MODEST
@given(shell=SHELL_VALUES)
def test_shell_values_convert_to_their_extended_json(shell: tuple[str, Any]) -> None:
    text, expected = shell
    result = converted(text)
    assert json.loads(result) == expected
    # Idempotent: the strict output is accepted input and comes back unchanged.
    assert converted(result) == result


@MODEST
@given(shell=SHELL_VALUES, data=st.data())
def test_truncated_shell_values_give_a_value_or_a_reason(
    shell: tuple[str, Any], data: st.DataObject
) -> None:
    text = shell[0]
    end = data.draw(st.integers(0, len(text)))
    exactly_one(mongo_shell_to_json(text[:end]))
    exactly_one(mongo_id_text(text[:end]))


# Fragments of shell syntax, so random text reaches deep into the parser, not just its first check.
SYNTAX = st.lists(
    st.sampled_from(
        [
            *"{}[]()\"',:\\/ \n0123456789-.eE+$_abnfrtuxNIOSDTZ",
            *("ObjectId(", "ISODate(", "new Date(", "NumberLong(", "BinData(", "Timestamp("),
            *("UUID(", "MinKey", "NaN", "-Infinity", "undefined", "true", "null", "\\u", "\\x"),
        ]
    ),
    max_size=40,
).map("".join)


@MODEST
@given(text=st.text() | SYNTAX)
def test_random_text_never_raises(text: str) -> None:
    exactly_one(mongo_shell_to_json(text))
    exactly_one(mongo_id_text(text))


@MODEST
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=40))
def test_reasons_name_an_offset_inside_the_input(text: str) -> None:
    """Every parse error says where it is, so a rejected message can be found and fixed."""
    reason = mongo_shell_to_json("[" + text)[1]
    if reason is not None:
        offset = re.search(r"\(at offset (\d+)\)$", reason)
        assert offset is not None, reason
        assert int(offset.group(1)) <= len(text) + 1
