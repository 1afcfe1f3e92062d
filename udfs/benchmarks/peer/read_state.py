"""Write the peer's current rows as JSON files into the folder given (run with the peer's
own python and SPARK_CONF_DIR, as its pipeline runs). bench_peers.py compares them with
cdc-lake's and with the simulated database."""

import sys

from pyspark.sql import SparkSession

spark = SparkSession.builder.master("local[*]").getOrCreate()
rows = spark.sql("select source_table, id, status, amount, updated_at from lake.db.current_rows")
rows.write.mode("overwrite").json(sys.argv[1])
spark.stop()
