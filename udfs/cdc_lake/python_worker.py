"""What a Spark Python worker process needs beyond Spark's own setup, applied when the worker
imports this package (unpickling a cdc-lake UDF).

Spark starts every Python UDF evaluation in a worker with `importlib.invalidate_caches()`
(pyspark's `setup_spark_files`), and puts zip archives first on the worker's path: pyspark.zip,
py4j's, and the spark-core jar (5,362 entries). Python 3.11's zip importer re-reads its
archive's whole directory on every invalidation, once per package imported from it (a dozen
importers in a worker), several evaluations per task (one per Python UDF operator in the plan):
in a profile of the workers during a staging build, nearly all of their time was that
re-reading (figures: udfs/benchmarks/README.md). Python 3.12 re-reads lazily (CPython
gh-103200), and Spark after 4.1 invalidates only when it added a file (SPARK-54744); until
then (Python 3.11.7 and pyspark 4.1 here) the directories are kept, since Spark's archives do
not change while a worker lives (files Spark adds later are new paths, read when first
imported from).
"""

from __future__ import annotations

import sys
import zipimport


def _keep_directory(self: zipimport.zipimporter) -> None:
    """The archive's directory as read when its importer was made: it does not change."""


def keep_zip_directories() -> bool:
    """In a pyspark worker on Python before 3.12, stop zip importers re-reading their
    archives at every cache invalidation; True when applied. Elsewhere (the CLI, the server's
    driver, tests) nothing changes."""
    if sys.version_info >= (3, 12) or "pyspark.worker" not in sys.modules:
        return False
    zipimport.zipimporter.invalidate_caches = _keep_directory  # type: ignore[method-assign]
    return True
