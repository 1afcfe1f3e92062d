"""The project's UDFs, called by name from a plain Thrift client, as dbt calls them."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import query

from cdc_lake.registry import sql_names

pytestmark = pytest.mark.spark


def test_every_registered_udf_is_visible_to_a_new_connection(cursor: Any) -> None:
    for name in sql_names():
        rows = query(cursor, f"show functions like '{name}'")
        assert [row["function"] for row in rows] == [name]


def test_byte_list_to_base64_over_thrift(cursor: Any) -> None:
    rows = query(
        cursor,
        """
        select input, byte_list_to_base64(input) as value, byte_list_to_base64_error(input) as error
        from values ('[106, 103, 111]'), ('[]'), ('[-1, 0, 255]'), ('[1, x]'), (null) as t(input)
        """,
    )
    assert [(row["value"], row["error"]) for row in rows] == [
        ("amdv", None),
        ("", None),
        ("/wD/", None),
        (None, "item 1 is not an integer: 'x'"),
        (None, None),
    ]
