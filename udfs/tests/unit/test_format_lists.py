"""The places that name the formats agree, so a new format missing from one fails in seconds.

The loader's registry (`formats.py`: landing tables), the dbt list (macro `cdc_formats`: each
format id's dbt source, which is its vendor folder, and its staging model; the union of
staging and the accounting read it), the staging models and their one yml, the tables of
formats people read (README, the dbt docs' overview and ordering pages), and the bundled
samples (var `cdc_lake_formats` defaults to `all`, not to a list). dbt needs its own list
because its graph is fixed when the project is parsed, before any Python of ours runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest
import yaml
from support.project import PROJECT_ROOT

from cdc_lake.formats import FORMATS

ENTRY = re.compile(r"'format': '([a-z0-9_]+)',\s*'source': '([a-z0-9_]+)',\s*'model': '(\w+)'")


def macro_path(name: str) -> Path:
    """The file under macros/ that defines macro `name`, wherever its folder."""
    [path] = [
        path
        for path in (PROJECT_ROOT / "macros").rglob("*.sql")
        if re.search(rf"\{{%-? macro {name}\(", path.read_text())
    ]
    return path


def dbt_formats() -> list[tuple[str, str, str]]:
    """(format id, dbt source, staging model) of every entry of macro cdc_formats."""
    return ENTRY.findall(macro_path("cdc_formats").read_text())


def staging_model_path(model: str) -> Path:
    """The SQL file of a staging model."""
    [path] = (PROJECT_ROOT / "models" / "staging").rglob(f"{model}.sql")
    return path


def test_the_macro_lists_the_loaders_formats() -> None:
    assert sorted(fmt for fmt, _, _ in dbt_formats()) == sorted(FORMATS)


def test_every_format_is_enabled_by_default() -> None:
    """`all`, not a list: a new format is read without a line outside its folder."""
    project = yaml.safe_load((PROJECT_ROOT / "dbt_project.yml").read_text())
    assert project["vars"]["cdc_lake_formats"] == "all"


def test_every_entry_names_its_staging_model_and_source_table() -> None:
    for fmt, source, model in dbt_formats():
        path = staging_model_path(model)
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


SHAPE_CALL = re.compile(r"\{\{ (\w+_staged_events)\(\s*'\w+',\s*'([a-z0-9_]+)'")
CTE = re.compile(r"^(\w+) as \($", re.MULTILINE)
RAW_MESSAGES = (
    "\nwith\n\nraw_messages as (\n\n"
    "    select * from {{ landing }}\n    where {{ new_loads }}\n\n),\n"
)
PROJECTION = "{{ staged_event_projection(\n    'renamed',\n    "
SELECT_NEW_ROWS = r"\) \}\}\n\n\{\{ select_new_rows\(new_loads\) \}\}\n"
END_OF_MACRO = r"\) \}\}\n\n\{%-? endmacro -?%\}\n"


def model_head(fmt: str, source: str) -> str:
    """The first lines of every staging model: enabled with its format, its landing table, and
    the condition that keeps the loads landed since its last run."""
    return (
        f"{{{{ config(enabled=is_format_enabled('{fmt}')) }}}}\n"
        f"{{%- set landing = source('{source}', '{fmt}') -%}}\n"
        "{%- set new_loads = loaded_since_last_run(landing, partitioned=true) %}\n"
    )


def assert_ends_with_renamed_then_projection(text: str, format_argument: str, end: str) -> None:
    """The last CTE is `renamed`, then the one projection of the contract over it, then what
    the pattern `end` matches, and nothing else."""
    at = text.index(PROJECTION + format_argument + ",\n")
    assert CTE.findall(text[:at])[-1] == "renamed", text[:at][-200:]
    rest = text[at:]
    assert re.search(end + r"\Z", rest) and rest.count("\n) }}") == 1, rest[-200:]


def test_every_staging_model_has_the_one_staging_shape() -> None:
    """One visible shape (the overview's staging paragraph): enabled with its format; the
    landing rows of the run's new loads as the import CTE `raw_messages`; the format's CTEs
    ending in `renamed`; the shared projection of the contract; those rows, none when
    nothing is new.

    Where two formats share one message shape, the model calls that shape's macro with its
    format id, and the macro holds the CTEs and the projection (of `source_format`), so both
    formats name their absent columns in one place; a shape's macro serves two formats or more.
    """
    formats_of_shape: dict[str, list[str]] = {}
    for fmt, source, model in dbt_formats():
        text = staging_model_path(model).read_text()
        assert text.startswith(model_head(fmt, source)), model
        assert RAW_MESSAGES in text and CTE.findall(text)[0] == "raw_messages", model
        assert "final as (" not in text, model
        shape = SHAPE_CALL.search(text)
        if shape is None:
            assert_ends_with_renamed_then_projection(text, f"'{fmt}'", SELECT_NEW_ROWS)
            continue
        assert shape.group(2) == fmt, model
        assert "staged_event_projection" not in text, model
        assert CTE.findall(text[shape.start() :]) == [], model
        assert re.search(SELECT_NEW_ROWS + r"\Z", text), model
        macro = macro_path(shape.group(1)).read_text()
        assert_ends_with_renamed_then_projection(macro, "source_format", END_OF_MACRO)
        formats_of_shape.setdefault(shape.group(1), []).append(fmt)
    assert [shape for shape, formats in formats_of_shape.items() if len(formats) < 2] == []


STAGING_YML = PROJECT_ROOT / "models" / "staging" / "_staging__models.yml"


def test_every_staging_model_takes_the_contracts_one_column_list() -> None:
    """The staging contract's columns, descriptions and data tests are declared once (an anchor
    in models/staging/_staging__models.yml), in the order of macro `staged_event_contract`,
    and every staging model, described in that file only, takes that one list."""
    config = yaml.safe_load(STAGING_YML.read_text())
    [columns] = config["anchors"]
    contract = re.findall(
        r"^ *\['(\w+)', ", macro_path("staged_event_contract").read_text(), re.MULTILINE
    )
    assert [column["name"] for column in columns] == contract
    assert [column["name"] for column in columns if not column.get("description")] == []
    models = {entry["name"]: entry for entry in config["models"]}
    assert sorted(models) == sorted(model for _, _, model in dbt_formats())
    assert [name for name, entry in models.items() if entry["columns"] is not columns] == []
    elsewhere = [
        path.name
        for path in (PROJECT_ROOT / "models" / "staging").rglob("*.yml")
        if path != STAGING_YML and "models" in (yaml.safe_load(path.read_text()) or {})
    ]
    assert elsewhere == []


FORMAT_IDS_CELL = re.compile(r"`\w+`(, `\w+`)*")


def format_rows(markdown: str) -> list[tuple[list[str], list[str]]]:
    """(format ids, staging models) of each Markdown table row whose first cell is backquoted
    names, one of them a format id, or whose other cells name a staging model."""
    rows = []
    for line in markdown.splitlines():
        if not line.startswith("|"):
            continue
        first, *others = (cell.strip() for cell in line.strip().strip("|").split("|"))
        if not FORMAT_IDS_CELL.fullmatch(first):
            continue
        ids = re.findall(r"`(\w+)`", first)
        models = [name for cell in others for name in re.findall(r"`(stg_\w+)`", cell)]
        if models or set(ids) & set(FORMATS):
            rows.append((ids, models))
    return rows


@pytest.mark.parametrize(
    ("document", "with_models"),
    [
        ("README.md", True),
        ("models/docs/_overview__docs.md", True),
        ("models/docs/_ordering__docs.md", False),
    ],
)
def test_every_table_of_formats_names_each_format_once(document: str, with_models: bool) -> None:
    """The tables people read list every format id once, and where they name staging models,
    each id's own (macro `cdc_formats` is the map: format ids are users' landing tables,
    model names follow dbt's `stg_<vendor>__<format>`)."""
    model_of = {fmt: model for fmt, _, model in dbt_formats()}
    rows = format_rows((PROJECT_ROOT / document).read_text())
    assert sorted(fmt for ids, _ in rows for fmt in ids) == sorted(model_of)
    for ids, models in rows:
        if with_models or models:
            assert models == [model_of.get(fmt) for fmt in ids], (document, ids)


SEED_REF = re.compile(r"ref\('(\w+)'\)")


def seed_names() -> set[str]:
    """Every seed of the project (its CSV files)."""
    return {path.stem for path in (PROJECT_ROOT / "seeds").glob("*.csv")}


def seeds_read_by(fmt: str, model: str) -> set[str]:
    """The seeds a format's staging model refs, itself or through its shape's macro."""
    text = staging_model_path(model).read_text()
    shape = SHAPE_CALL.search(text)
    if shape is not None:
        text += macro_path(shape.group(1)).read_text()
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
    staging reads it (a seed left out would fail dbt's parse; one left in would be seeded and
    tested on every `dbt build`)."""
    assert enabled_seeds("all") == seed_names()
    for fmt, _, model in dbt_formats():
        assert enabled_seeds([fmt]) == seeds_read_by(fmt, model), fmt
    assert enabled_seeds([]) == set()
