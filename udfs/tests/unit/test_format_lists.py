"""The places that name the formats agree, so a new format missing from one fails in seconds.

The loader's registry (`formats.py`: landing tables), the dbt list (`macros/cdc_formats.sql`:
the union of staging and the accounting), the staging models themselves, and the bundled
samples (var `cdc_lake_formats` defaults to `all`, not to a list). dbt needs its own list
because its graph is fixed when the project is parsed, before any Python of ours runs.
"""

from __future__ import annotations

import re

import jinja2
import yaml
from support.project import PROJECT_ROOT

from cdc_lake.formats import FORMATS

ENTRY = re.compile(r"'format': '([a-z0-9_]+)',\s*'source': '([a-z0-9_]+)',\s*'model': '(\w+)'")


def dbt_formats() -> list[tuple[str, str, str]]:
    """(format id, dbt source, staging model) of every entry of macro cdc_formats."""
    return ENTRY.findall((PROJECT_ROOT / "macros" / "cdc_formats.sql").read_text())


def test_the_macro_lists_the_loaders_formats() -> None:
    assert sorted(fmt for fmt, _, _ in dbt_formats()) == sorted(FORMATS)


def test_every_format_is_enabled_by_default() -> None:
    """`all`, not a list: a new format is read without a line outside its folder."""
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())
    assert project["vars"]["cdc_lake_formats"] == "all"


def test_every_entry_names_its_staging_model_and_source_table() -> None:
    for fmt, source, model in dbt_formats():
        [path] = (PROJECT_ROOT / "models" / "staging").rglob(f"{model}.sql")
        assert path.parent.name == source, (model, source)
        text = path.read_text()
        assert f"is_format_enabled('{fmt}')" in text, model
        sources = yaml.safe_load(next(path.parent.glob("_*__sources.yml")).read_text())
        tables = {table["name"] for entry in sources["sources"] for table in entry["tables"]}
        assert fmt in tables, (fmt, source)


def test_every_format_has_bundled_samples_with_their_provenance() -> None:
    samples = PROJECT_ROOT / "seeds" / "samples"
    assert sorted(path.name for path in samples.iterdir() if path.is_dir()) == sorted(FORMATS)
    sources = (samples / "SOURCES.md").read_text()
    assert sorted(fmt for fmt in FORMATS if f"| `{fmt}/" not in sources) == []


FAMILY_CALL = re.compile(r"\{\{ (\w+_staged_events)\(\s*'\w+',\s*'([a-z0-9_]+)'")


def test_every_staging_model_ends_with_the_one_projection() -> None:
    """One visible shape: the format's CTEs over the landing rows of the run's new loads,
    then the shared projection of the contract, then those rows (none when nothing is new).

    A model either calls `staged_event_projection` with its own format id, or calls the macro
    of its wire format family with its format id, and that macro ends with the projection of
    `source_format` (so both formats of a family name their absent columns in one place).
    """
    macros = PROJECT_ROOT / "macros"
    for fmt, source, model in dbt_formats():
        [path] = (PROJECT_ROOT / "models" / "staging").rglob(f"{model}.sql")
        text = path.read_text()
        assert f"{{%- set landing = source('{source}', '{fmt}') -%}}" in text, model
        assert "select * from {{ landing }}\n    where {{ new_loads }}\n" in text, model
        assert text.rstrip().endswith("}}\n\n{{ select_new_rows(new_loads) }}"), model
        assert text.count("final as (") == 0, model
        family = FAMILY_CALL.search(text)
        if family is None:
            assert f"staged_event_projection(\n    'renamed',\n    '{fmt}'," in text, model
            continue
        assert family.group(2) == fmt, model
        assert "staged_event_projection" not in text, model
        macro = (macros / f"{family.group(1)}.sql").read_text()
        assert macro.rstrip().endswith(") }}\n\n{%- endmacro %}"), family.group(1)
        assert "staged_event_projection(\n    'renamed',\n    source_format," in macro, model


SEED_REF = re.compile(r"ref\('(\w+)'\)")


def seed_names() -> set[str]:
    """Every seed of the project (its CSV files)."""
    return {path.stem for path in (PROJECT_ROOT / "seeds").glob("*.csv")}


def seeds_read_by(fmt: str, model: str) -> set[str]:
    """The seeds a format's staging model refs, itself or through its family's macro."""
    [path] = (PROJECT_ROOT / "models" / "staging").rglob(f"{model}.sql")
    text = path.read_text()
    family = FAMILY_CALL.search(text)
    if family is not None:
        text += (PROJECT_ROOT / "macros" / f"{family.group(1)}.sql").read_text()
    return set(SEED_REF.findall(text)) & seed_names()


def enabled_seeds(formats: object) -> set[str]:
    """The seeds whose `enabled` config (seeds/_seeds.yml) renders true for this value of var
    cdc_lake_formats, rendered as dbt renders it (Jinja, `var` the project var)."""
    environment = jinja2.Environment(undefined=jinja2.StrictUndefined)
    environment.globals["var"] = lambda name: {"cdc_lake_formats": formats}[name]
    config = yaml.safe_load((PROJECT_ROOT / "seeds" / "_seeds.yml").read_text())
    return {
        seed["name"]
        for seed in config["seeds"]
        if environment.from_string(seed["config"]["enabled"]).render().strip() == "True"
    }


def test_a_deployment_seeds_and_tests_only_its_formats_vocabularies() -> None:
    """Formats nobody reads cost nothing: each seed is enabled exactly for the formats whose
    staging reads it (a seed left out would fail dbt's parse; one left in is seeded and
    tested on every `dbt build`: 42 of the 118 tests of a Canal-only deployment)."""
    assert enabled_seeds("all") == seed_names()
    for fmt, _, model in dbt_formats():
        assert enabled_seeds([fmt]) == seeds_read_by(fmt, model), fmt
    assert enabled_seeds([]) == set()
