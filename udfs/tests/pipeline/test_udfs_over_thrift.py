"""The project's UDFs, called by name from a plain Thrift client, as dbt calls them.

One Spark-level test per UDF: each row carries its input and the `expected` value or error,
NULL rows included, and the query compares them on the server.
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import fastavro
import pytest
from support.pipeline import query
from support.project import PROJECT_ROOT

from cdc_lake.dts_avro import dts_record_schema
from cdc_lake.registry import sql_names

pytestmark = pytest.mark.spark

DDL_META = json.loads(
    (PROJECT_ROOT / "seeds/samples/datahub_blob/04_ddl_alter_table.jsonl").read_text()
)["payload"]["ddl"]["ddlMeta"]


def sql_text(value: str | None) -> str:
    if value is None:
        return "cast(null as string)"
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def check(cursor: Any, function: str, cases: list[tuple[str, str | None, str | None]]) -> None:
    """Each case: (SQL input expression, expected value, expected error)."""
    rows = " union all ".join(
        f"select {sql} as input, {sql_text(value)} as expected_value, "
        f"{sql_text(error)} as expected_error"
        for sql, value, error in cases
    )
    result = query(
        cursor,
        f"""
        select {function}(input) as value, {function}_error(input) as error,
            expected_value, expected_error
        from ({rows}) as cases""",
    )
    assert [(r["value"], r["error"]) for r in result] == [
        (r["expected_value"], r["expected_error"]) for r in result
    ]


def test_every_registered_udf_is_visible_to_a_new_connection(cursor: Any) -> None:
    for name in sql_names():
        rows = query(cursor, f"show functions like '{name}'")
        assert [row["function"] for row in rows] == [name]


def test_every_udf_is_documented_in_the_readme() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `([a-z0-9_]+)\(", readme, flags=re.MULTILINE))
    values = {name for name in sql_names() if not name.endswith(("_error", "_result"))}
    assert values <= documented, values - documented


def test_result_functions_give_value_and_error_in_one_call(cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select byte_list_to_base64_result(input) as r
        from values ('[106, 103, 111]'), ('[1, x]'), (cast(null as string)) as cases(input)""",
    )
    assert [json.loads(row["r"]) for row in rows] == [
        {"value": "amdv", "error": None},
        {"value": None, "error": "item 1 is not an integer: 'x'"},
        {"value": None, "error": None},
    ]


def test_byte_list_to_base64(cursor: Any) -> None:
    check(
        cursor,
        "byte_list_to_base64",
        [
            ("'[106, 103, 111]'", "amdv", None),
            ("'[]'", "", None),
            ("'[-1, 0, 255]'", "/wD/", None),
            ("'[1, x]'", None, "item 1 is not an integer: 'x'"),
            ("cast(null as string)", None, None),
        ],
    )


def test_mongo_shell_to_json_and_id(cursor: Any) -> None:
    document = '{"_id": ObjectId("64650cf67dc36a464e76e583"), "c1": "baz", "n": NumberLong(7)}'
    strict = '{"_id":{"$oid":"64650cf67dc36a464e76e583"},"c1":"baz","n":{"$numberLong":"7"}}'
    check(
        cursor,
        "mongo_shell_to_json",
        [
            (sql_text(document), strict, None),
            ('\'{"$unset": {"c1": true}}\'', '{"$unset":{"c1":true}}', None),
            ("cast(null as string)", None, None),
        ],
    )
    check(
        cursor,
        "mongo_id_text",
        [
            (sql_text(document), "64650cf67dc36a464e76e583", None),
            ("cast(null as string)", None, None),
        ],
    )
    [bad] = query(
        cursor,
        "select mongo_shell_to_json('{\"a\": ') as v, mongo_shell_to_json_error('{\"a\": ') as e",
    )
    assert bad["v"] is None and bad["e"]


def test_json_numbers_as_text_keeps_what_from_json_would_respell(cursor: Any) -> None:
    check(
        cursor,
        "json_numbers_as_text",
        [
            (
                sql_text('{"p": 1.50, "n": 2, "s": "1.50"}'),
                '{"p": "1.50", "n": 2, "s": "1.50"}',
                None,
            ),
            ("cast(null as string)", None, None),
        ],
    )
    [row] = query(
        cursor,
        """select from_json(json_numbers_as_text('{"p": 1.50, "e": 1E+3}'),
            'map<string, string>') as m""",
    )
    assert json.loads(row["m"]) == {"p": "1.50", "e": "1E+3"}


def dts_record(operation: str) -> bytes:
    record = {
        "version": 1, "id": 5, "sourceTimestamp": 1700000000, "sourcePosition": "4@mysql-bin.1",
        "safeSourcePosition": "4@mysql-bin.1", "sourceTxid": "9",
        "source": {"sourceType": "MySQL", "version": "8.0"}, "operation": operation,
        "objectName": "shop.orders", "processTimestamps": None, "tags": {},
        "fields": [{"name": "id", "dataTypeNumber": 3}],
        "beforeImages": None,
        "afterImages": [("com.alibaba.dts.formats.avro.Integer", {"precision": 11, "value": "7"})],
        "bornTimestamp": 1700000001,
    }  # fmt: skip
    out = io.BytesIO()
    fastavro.schemaless_writer(out, dts_record_schema(), record)
    return out.getvalue()


def test_dts_avro_json_over_binary(cursor: Any) -> None:
    raw = dts_record("INSERT")
    rows = query(
        cursor,
        f"""
        select dts_avro_json(input) as value, dts_avro_json_error(input) as error
        from values (unhex('{raw.hex()}')), (unhex('{raw.hex()}00')), (cast(null as binary))
            as cases(input)""",
    )
    good, trailing, null = rows
    decoded = json.loads(good["value"])
    assert (decoded["operation"], decoded["database_name"], decoded["table_name"]) == (
        "INSERT", "shop", "orders",
    )  # fmt: skip
    assert decoded["after_images"] == {"id": "7"} and good["error"] is None
    assert trailing["value"] is None and trailing["error"]
    assert null == {"value": None, "error": None}


def test_java_object_json_and_ddl_meta_summary(cursor: Any) -> None:
    rows = query(
        cursor,
        f"""
        select get_json_object(java_object_json(input), '$.@class') as class_name,
            java_object_json_error(input) as error,
            to_json(ddl_meta_summary(input)) as summary,
            ddl_meta_summary_error(input) as summary_error
        from values ('{DDL_META}'), ('bm90IGphdmE='), (cast(null as string)) as cases(input)""",
    )
    sample, bad, null = rows
    assert sample["class_name"] == "com.alibaba.di.plugin.center.meta.DDLMeta"
    assert json.loads(sample["summary"]) == {
        "ddl_text": "alter table t_shiyu_nopk add column holo text",
        "statement_type": "alter_table",
        "db_type": "mysql",
        "table_name": "t_shiyu_nopk",
        "columns": [{"action": "add", "name": "holo", "data_type": "text"}],
    }
    assert sample["error"] is None and sample["summary_error"] is None
    assert bad["class_name"] is None and bad["error"] and bad["summary_error"]
    assert null == {"class_name": None, "error": None, "summary": None, "summary_error": None}
