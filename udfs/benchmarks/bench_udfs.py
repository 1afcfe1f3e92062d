"""Rows per second of every cdc-lake UDF next to the nearest Spark built-in, in one run.

Each case runs an aggregate over a cached column of N inputs, once through the UDF and once
through the built-in that does the nearest job (the same job in plain SQL where one exists,
else the decoding step a UDF cannot avoid, such as `unbase64`), and prints both rates and
their ratio. It uses an in-process local Spark session with the UDFs registered exactly as
`cdc-lake serve` registers them; Thrift adds the same fixed cost to both sides.

    .venv/bin/python udfs/benchmarks/bench_udfs.py --rows 200000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parents[2]
DDL_SAMPLE = PROJECT_ROOT / "seeds/samples/datahub_blob/04_ddl_alter_table.jsonl"


@dataclass(frozen=True)
class Case:
    """One UDF against one built-in over the same inputs."""

    udf_expression: str  # over column `x`
    builtin_label: str
    builtin_expression: str  # over column `x`, or `y` (the built-in's own form of the input)
    inputs: Callable[[random.Random], tuple[object, object]]  # (x, y) of one row
    input_type: str  # Spark type of x
    y_type: str = "string"


def byte_list_input(rng: random.Random) -> tuple[object, object]:
    data = bytes(rng.randrange(256) for _ in range(rng.randrange(4, 64)))
    return "[" + ", ".join(str(b - 256 if b > 127 else b) for b in data) + "]", None


def mongo_input(rng: random.Random) -> tuple[object, object]:
    oid = "".join(rng.choice("0123456789abcdef") for _ in range(24))
    tags = json.dumps(rng.sample(["mongodb", "database", "NoSQL", "cdc", "lake"], 3))
    shell = f'{{"_id": ObjectId("{oid}"), "c1": "baz{rng.randrange(10**6)}", "tags": {tags}}}'
    strict = f'{{"_id":{{"$oid":"{oid}"}},"c1":"baz","tags":{tags}}}'
    return shell, strict


def ddl_meta_input(rng: random.Random) -> tuple[object, object]:
    message = json.loads(DDL_SAMPLE.read_text())
    return message["payload"]["ddl"]["ddlMeta"], None


def dts_avro_input(rng: random.Random) -> tuple[object, object]:
    """An UPDATE of a two-column MySQL row, written with the DTS schema as DTS writes it."""
    import io

    import fastavro

    from cdc_lake.dts_avro import dts_record_schema

    def image(note: str) -> list:
        avro = "com.alibaba.dts.formats.avro."
        text = (avro + "Character", {"charset": "utf8mb4", "value": note.encode()})
        number = (avro + "Integer", {"precision": 11, "value": "7"})
        return [number, text]

    record = {
        "version": 1, "id": rng.randrange(10**9), "sourceTimestamp": 1700000000,
        "sourcePosition": "1234@mysql-bin.000042", "safeSourcePosition": "1200@mysql-bin.000042",
        "sourceTxid": "8812", "source": {"sourceType": "MySQL", "version": "8.0.32"},
        "operation": "UPDATE", "objectName": "shop.orders", "processTimestamps": None,
        "tags": {},
        "fields": [{"name": "id", "dataTypeNumber": 3}, {"name": "note", "dataTypeNumber": 253}],
        "beforeImages": image("before"), "afterImages": image(f"after {rng.randrange(10**6)}"),
        "bornTimestamp": 1700000000,
    }  # fmt: skip
    out = io.BytesIO()
    fastavro.schemaless_writer(out, dts_record_schema(), record)
    return out.getvalue(), None


SQL_BYTE_LIST = (
    "base64(unhex(array_join(transform(from_json(x, 'array<int>'), "
    "b -> lpad(hex(b & 255), 2, '0')), '')))"
)

CASES: dict[str, Case] = {
    "byte_list_to_base64": Case(
        "byte_list_to_base64(x)", "same job in SQL", SQL_BYTE_LIST, byte_list_input, "string"
    ),
    "mongo_shell_to_json": Case(
        "mongo_shell_to_json(x)",
        "parse_json(strict JSON)",
        "to_json(parse_json(y))",
        mongo_input,
        "string",
    ),
    "mongo_id_text": Case(
        "mongo_id_text(x)",
        "get_json_object(strict, _id.$oid)",
        "get_json_object(y, '$._id.$oid')",
        mongo_input,
        "string",
    ),
    "java_object_json": Case(
        "java_object_json(x)", "unbase64", "base64(unbase64(x))", ddl_meta_input, "string"
    ),
    "dts_avro_json": Case("dts_avro_json(x)", "base64", "base64(x)", dts_avro_input, "binary"),
    "ddl_meta_summary": Case(
        "to_json(ddl_meta_summary(x))",
        "unbase64",
        "base64(unbase64(x))",
        ddl_meta_input,
        "string",
    ),
}


def measure(spark: Any, expression: str, table: str) -> float:
    """Seconds to evaluate `length(expression)` over every row of the cached table."""
    started = time.perf_counter()
    spark.sql(f"select sum(length({expression})) from {table}").collect()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--only", nargs="*", help="UDF names to run (default: all)")
    args = parser.parse_args(argv)

    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    from cdc_lake.registry import register_all, sql_names

    spark = (
        SparkSession.builder.master("local[*]")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "4g")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    register_all(spark)
    selected = [name for name in CASES if not args.only or name in args.only]
    missing = set(selected) - set(sql_names())
    if missing:
        raise SystemExit(f"benchmark cases for unregistered UDFs: {sorted(missing)}")

    rng = random.Random(7)
    print(f"{args.rows:,} rows per case, local[*] on {os.cpu_count()} cores")
    print(f"{'UDF':<22} {'rows/s':>10}   {'built-in':<34} {'rows/s':>10}   UDF/built-in")
    for name in selected:
        case = CASES[name]
        # A few thousand distinct inputs, repeated inside Spark up to the row count.
        distinct = [case.inputs(rng) for _ in range(min(args.rows, 2_000))]
        if case.input_type == "binary":
            distinct = [(bytearray(x), y) for x, y in distinct]
        repeats = -(-args.rows // len(distinct))
        spark.createDataFrame(
            distinct, f"x {case.input_type}, y {case.y_type}"
        ).createOrReplaceTempView("bench_distinct")
        spark.sql(
            f"select x, y from bench_distinct lateral view explode(sequence(1, {repeats})) as r "
            f"limit {args.rows}"
        ).repartition(os.cpu_count() or 2).cache().createOrReplaceTempView("bench_input")
        spark.sql("select count(*) from bench_input").collect()
        measure(spark, case.udf_expression, "bench_input")  # warm the Python workers
        udf_seconds = measure(spark, case.udf_expression, "bench_input")
        builtin_seconds = measure(spark, case.builtin_expression, "bench_input")
        udf_rate, builtin_rate = args.rows / udf_seconds, args.rows / builtin_seconds
        print(
            f"{name:<22} {udf_rate:>10,.0f}   {case.builtin_label:<34} {builtin_rate:>10,.0f}"
            f"   {udf_rate / builtin_rate:>8.2f}x"
        )
        spark.catalog.clearCache()
    spark.stop()


if __name__ == "__main__":
    main()
