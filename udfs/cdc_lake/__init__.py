"""cdc-lake runtime: the embedded Spark Thrift server, the raw-message loader and the UDFs."""

from cdc_lake.python_worker import keep_zip_directories

__version__ = "0.1.0"

# A Spark Python worker imports this package to run a UDF: see python_worker.
keep_zip_directories()
