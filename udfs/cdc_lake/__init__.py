"""cdc-lake runtime: the embedded Spark Thrift server, the raw-message loader and the UDFs."""

__version__ = "0.1.0"
