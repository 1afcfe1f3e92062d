"""The `cdc_lake_formats` var checked by dbt's compile against the session's server (the
declarations of every var are checked without a server in unit/test_project_vars.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.pipeline import run_dbt


@pytest.mark.parametrize(
    ("formats", "message"),
    [
        ("[canal_json, canal-jsn]", "names unknown format ids: canal-jsn;"),
        ("canal_json", "is the string 'canal_json', not a list;"),
    ],
)
def test_a_format_list_that_is_not_all_or_known_ids_fails_with_the_known_ids(
    spark_server: object, tmp_path: Path, formats: str, message: str
) -> None:
    """A typo in `cdc_lake_formats` would otherwise stage nothing and build empty tables."""
    result = run_dbt(
        *("compile", "--select", "int_cdc__staged_events", "--target-path", str(tmp_path)),
        *("--vars", f"{{cdc_lake_formats: {formats}}}"),
    )
    assert not result.success
    assert f"var cdc_lake_formats {message}" in str(result.exception or result.result)
    assert "it is `all` or a list of format ids: dataworks_json," in str(
        result.exception or result.result
    )
