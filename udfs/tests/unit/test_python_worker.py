"""keep_zip_directories: a pyspark worker's zip importers stop re-reading their archives."""

from __future__ import annotations

import sys
import types
import zipfile
import zipimport
from pathlib import Path

import pytest

from cdc_lake.python_worker import keep_zip_directories


def archive_with(path: Path, *modules: str) -> None:
    with zipfile.ZipFile(path, "a") as archive:
        for module in modules:
            archive.writestr(f"{module}.py", "VALUE = 1\n")


def found_after_invalidation(path: Path) -> bool:
    """Whether a module added to the archive after its importer read it is found once the
    importer's caches are invalidated (Python 3.11 re-reads the directory there)."""
    archive_with(path, "first")
    importer = zipimport.zipimporter(str(path))
    archive_with(path, "added_later")
    importer.invalidate_caches()
    return importer.find_spec("added_later") is not None


def test_nothing_changes_outside_a_pyspark_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(sys.modules, "pyspark.worker", raising=False)
    monkeypatch.setattr(
        zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches
    )
    assert keep_zip_directories() is False
    assert found_after_invalidation(tmp_path / "archive.zip")


def test_a_worker_keeps_each_archive_directory_as_first_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Applied on Python before 3.12 only: from 3.12 the re-reading is lazy already."""
    monkeypatch.setitem(sys.modules, "pyspark.worker", types.ModuleType("pyspark.worker"))
    # Restored after the test: the patch is for worker processes only.
    monkeypatch.setattr(
        zipimport.zipimporter, "invalidate_caches", zipimport.zipimporter.invalidate_caches
    )
    applied = sys.version_info < (3, 12)
    assert keep_zip_directories() is applied
    assert found_after_invalidation(tmp_path / "archive.zip") is not applied
