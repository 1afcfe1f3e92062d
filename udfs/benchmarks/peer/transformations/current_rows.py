"""The peer: the landed messages into one Iceberg table of the current rows, with Spark's
AUTO CDC, written as its documentation shows (a change-stream view, a streaming table, a
flow keyed and sequenced as the format says, deletes applied, SCD type 1).

Run by bench_peers.py with `spark-pipelines run` in the peer's own virtual environment
(pyspark 4.2); its spec sets `cdc_lake.peer.format` (canal_json or debezium_json) and
`cdc_lake.peer.landing` (the folder the messages' files arrive in).
"""

from pyspark import pipelines as dp
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

spark = SparkSession.active()
FORMAT = spark.conf.get("cdc_lake.peer.format")
LANDING = spark.conf.get("cdc_lake.peer.landing")
VALUES = ("status", "amount", "updated_at")

# Canal flat messages: one message holds 1 to 3 rows of one table; `data` has each row's
# whole new image (a delete's: the deleted row), so the partial `old` is not needed here.
CANAL = (
    "struct<data: array<map<string, string>>, database: string, table: string, type: string, "
    "es: bigint, ts: bigint, isDdl: boolean>"
)
# kcat -J envelopes around Debezium JSON without schemas: one row per message; a delete has
# only `before`.
KCAT = "struct<topic: string, partition: int, offset: bigint, key: string, payload: string>"
DEBEZIUM_ROW = "struct<id: bigint, status: string, amount: string, updated_at: bigint>"
DEBEZIUM = (
    f"struct<before: {DEBEZIUM_ROW}, after: {DEBEZIUM_ROW}, op: string, "
    "source: struct<db: string, table: string, file: string, pos: bigint, row: int>>"
)


def canal_changes(lines: DataFrame) -> DataFrame:
    """One row per row change; ordered by the binlog time (seconds) and then Canal's own
    time, which the simulated Canal raises with every message."""
    messages = lines.select(F.from_json("value", CANAL).alias("m")).where(
        "not m.isDdl and m.type in ('INSERT', 'UPDATE', 'DELETE')"
    )
    rows = messages.select("m.*", F.explode("m.data").alias("row"))
    return rows.select(
        F.concat_ws(".", "database", "table").alias("source_table"),
        F.col("row")["id"].alias("id"),
        *(F.col("row")[name].alias(name) for name in VALUES),
        (F.col("type") == "DELETE").alias("is_delete"),
        F.struct("es", "ts").alias("sequence"),
    )


def debezium_changes(lines: DataFrame) -> DataFrame:
    """One row per message; ordered by the binlog position (file, position, row)."""
    envelopes = lines.select(F.from_json("value", KCAT).alias("k")).where("k.payload is not null")
    events = envelopes.select(F.from_json("k.payload", DEBEZIUM).alias("e"))
    image: Column = F.coalesce("e.after", "e.before")
    return events.where("e.op in ('c', 'r', 'u', 'd')").select(
        F.concat_ws(".", "e.source.db", "e.source.table").alias("source_table"),
        image["id"].cast("string").alias("id"),
        *(image[name].cast("string").alias(name) for name in VALUES),
        (F.col("e.op") == "d").alias("is_delete"),
        F.struct("e.source.file", "e.source.pos", "e.source.row").alias("sequence"),
    )


@dp.temporary_view
def changes() -> DataFrame:
    lines = spark.readStream.format("text").load(LANDING)
    return canal_changes(lines) if FORMAT == "canal_json" else debezium_changes(lines)


dp.create_streaming_table(name="current_rows")
dp.create_auto_cdc_flow(
    target="current_rows",
    source="changes",
    keys=["source_table", "id"],
    sequence_by="sequence",
    apply_as_deletes="is_delete",
    except_column_list=["is_delete", "sequence"],
    stored_as_scd_type=1,
)
