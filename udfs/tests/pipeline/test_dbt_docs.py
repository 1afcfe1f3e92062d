"""Lineage docs: `dbt docs generate` works against the server and nothing is undocumented."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.pipeline import compiled_inline, dbt_target_path, run_dbt
from support.project import PROJECT_ROOT

from cdc_lake.formats import FORMATS

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


def test_every_staging_model_emits_the_contract(pipeline_build: Any) -> None:
    by_name = {result.node.name: result for result in pipeline_build.result.results}
    check = by_name["assert_staging_models_emit_the_contract"]
    assert check.status == "pass", check.message
    staging = [name for name in by_name if name.startswith("stg_")]
    assert len(staging) == len(FORMATS) and set(check.node.depends_on.nodes) >= {
        f"model.cdc_lake.{name}" for name in staging
    }


def test_every_staging_model_runs_the_contracts_data_tests(pipeline_build: Any) -> None:
    """The data tests declared once for the staging contract (an anchor in
    models/staging/_staging__models.yml) are attached by dbt to every staging model, and pass."""
    config = yaml.safe_load(
        (PROJECT_ROOT / "models" / "staging" / "_staging__models.yml").read_text()
    )
    [columns] = config["anchors"]
    expected = sorted(
        (column["name"], next(iter(test)) if isinstance(test, dict) else test, "pass")
        for column in columns
        for test in column.get("data_tests", [])
    )
    by_model: dict[str, list[tuple[str, str, str]]] = {}
    for outcome in pipeline_build.result.results:
        node = outcome.node
        model = (getattr(node, "attached_node", None) or "").rsplit(".", 1)[-1]
        if node.resource_type == "test" and model.startswith("stg_"):
            test = (node.column_name, node.test_metadata.name, outcome.status)
            by_model.setdefault(model, []).append(test)
    assert len(by_model) == len(FORMATS)
    assert {model: sorted(tests) for model, tests in by_model.items()} == dict.fromkeys(
        by_model, expected
    )


def compiled(jinja: str, tmp_path: Path) -> Any:
    """The JSON a Jinja expression renders to."""
    return json.loads(compiled_inline(jinja, tmp_path))


def test_a_staging_model_that_drifts_is_told_how(tmp_path: Path) -> None:
    contract = compiled("{{ staged_event_contract() | tojson }}", tmp_path)
    assert contract[0] == ["event_id", "string"] and len(contract) == 38
    drifted = [column for column in contract if column[0] != "ddl_meta"]  # one missing
    drifted[1], drifted[2] = drifted[2], drifted[1]  # two swapped
    drifted[drifted.index(["loaded_at", "timestamp"])] = ["loaded_at", "string"]  # one retyped
    drifted.append(["vendor_field", "string"])  # one extra
    differences = compiled(
        f"{{{{ staging_contract_differences('stg_x', {json.dumps(drifted)}) | tojson }}}}",
        tmp_path,
    )
    assert differences == [
        ["stg_x", "ddl_meta", "missing (string)"],
        ["stg_x", "source_format", "out of order: the contract has it after event_kind"],
        ["stg_x", "event_kind", "out of order: the contract has it after event_id"],
        ["stg_x", "loaded_at", "string, the contract says timestamp"],
        ["stg_x", "vendor_field", "not in the contract"],
    ]
    assert (
        compiled(
            f"{{{{ staging_contract_differences('stg_x', {json.dumps(contract)}) | tojson }}}}",
            tmp_path,
        )
        == []
    )
