"""Every dbt var the models and macros read is declared in dbt_project.yml and in the README.

A var read with a default but declared nowhere is a setting a user cannot find; one declared
but never read is a setting that does nothing. The models read vars four ways: `var('name')`,
by name through the two macros that take one (`configured_key_columns`, the layout argument
of `canal_staged_events`), and `canal_staged_events`' key var, `<its format>_primary_keys`.
"""

from __future__ import annotations

import re

import yaml
from support.project import PROJECT_ROOT

READS = (  # (a pattern whose group names a var, the suffix that completes the name)
    (re.compile(r"\bvar\(\s*'([a-z0-9_]+)'"), ""),
    (re.compile(r"\bconfigured_key_columns\(\s*'([a-z0-9_]+)'"), ""),
    (re.compile(r"\bcanal_staged_events\(\s*'[^']*'\s*,\s*'[^']*'\s*,\s*'([a-z0-9_]+)'"), ""),
    (re.compile(r"\bcanal_staged_events\(\s*'[^']*'\s*,\s*'([a-z0-9_]+)'"), "_primary_keys"),
)


def vars_read() -> set[str]:
    names: set[str] = set()
    for folder in ("models", "macros"):
        for path in (PROJECT_ROOT / folder).rglob("*.sql"):
            text = path.read_text()
            for pattern, suffix in READS:
                names.update(name + suffix for name in pattern.findall(text))
    return names


def test_the_scan_finds_the_vars_of_each_way_of_reading_one() -> None:
    assert {
        "cdc_lake_formats",
        "lindorm_json_primary_keys",
        "dts_canal_json_legacy_layout",
        "canal_json_primary_keys",
    } <= vars_read()


def test_every_var_read_is_declared_and_every_declared_var_is_read() -> None:
    declared = set(yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())["vars"])
    assert vars_read() == declared


def test_every_var_is_in_the_readmes_settings() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert sorted(name for name in vars_read() if f"`{name}`" not in readme) == []
