"""Lineage docs: `dbt docs generate` works against the server and nothing is undocumented."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import dbt_target_path, run_dbt

pytestmark = pytest.mark.spark


def test_every_model_source_seed_and_column_is_described(pipeline_build: Any) -> None:
    result = run_dbt("docs", "generate")
    assert result.success, result.exception
    manifest = json.loads((dbt_target_path() / "manifest.json").read_text())
    catalog = json.loads((dbt_target_path() / "catalog.json").read_text())
    documented = {**manifest["nodes"], **manifest["sources"]}
    missing = []
    for unique_id, node in documented.items():
        if node["resource_type"] not in ("model", "source", "seed"):
            continue
        if not node.get("description"):
            missing.append(unique_id)
        missing += [f"{unique_id}.{c}" for c, d in node["columns"].items() if not d["description"]]
    # Every column that exists in the warehouse is declared (and so described) in YAML.
    for unique_id, entry in {**catalog["nodes"], **catalog["sources"]}.items():
        declared = documented[unique_id]["columns"]
        missing += [f"{unique_id}.{c} (undeclared)" for c in entry["columns"] if c not in declared]
    assert missing == []
    models = [n for n in documented.values() if n["resource_type"] == "model"]
    assert len(models) >= 9
