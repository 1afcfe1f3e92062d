"""Every SQL function cdc-lake adds to Spark, registered in one place.

Each UDF is a pure Python decoder, `decode(x) -> (value, error)`, tested without Spark in the
modules beside this one. It is registered twice:

- `name(x)`: the value, or NULL when the input is NULL or cannot be decoded;
- `name_error(x)`: NULL when `name(x)` succeeded (or the input is NULL), else the reason;
- `name_result(x)` (text decoders): both at once, `struct<value, error>`, so a staging model
  that needs the value and the reason decodes each message once, not twice.

So bad input never raises inside a Spark task, and SQL can keep the reason (staging models
put it in `rejection_reason`). Text results are pandas (Arrow) UDFs: Spark hands them whole
batches. Struct results are Arrow-optimised Python UDFs, because a pandas UDF cannot return
a NULL struct.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf, udf

from cdc_lake.byte_codecs import decode_byte_list
from cdc_lake.dts_avro import dts_avro_json
from cdc_lake.java_serialization import ddl_meta_summary, java_object_json
from cdc_lake.json_numbers import json_numbers_as_text
from cdc_lake.mongo_json import mongo_id_text, mongo_shell_to_json

Decode = Callable[[Any], tuple[Any, str | None]]

DDL_META_SUMMARY_TYPE = (
    "struct<ddl_text: string, statement_type: string, db_type: string, table_name: string, "
    "columns: array<struct<action: string, name: string, new_name: string, data_type: string>>>"
)


@dataclass(frozen=True)
class Decoder:
    """One decoding UDF: SQL name, what it takes and gives, and the pure function behind it."""

    name: str
    takes: str
    returns: str  # Spark SQL type of the value
    description: str
    decode: Decode


DECODERS: list[Decoder] = [
    Decoder(
        name="byte_list_to_base64",
        takes="string: `[106, 103, 111]`, signed (-128..127) or unsigned values, `[]` = empty",
        returns="string",
        description="Huawei DRS byte list to standard base64 (`amdv`).",
        decode=decode_byte_list,
    ),
    Decoder(
        name="mongo_shell_to_json",
        takes="string: MongoDB shell JSON as Huawei DRS writes DDS `value`/`where`",
        returns="string",
        description="Strict JSON, special types as MongoDB Extended JSON v2 "
        '(`ObjectId("..")` -> `{"$oid":".."}`, `ISODate(..)` -> `{"$date":".."}`, ...).',
        decode=mongo_shell_to_json,
    ),
    Decoder(
        name="mongo_id_text",
        takes="string: MongoDB shell JSON or strict JSON of a document",
        returns="string",
        description="The document's top-level `_id` as plain text (an ObjectId as its hex).",
        decode=mongo_id_text,
    ),
    Decoder(
        name="json_numbers_as_text",
        takes="string: a JSON message whose numbers Spark's JSON reader would respell",
        returns="string",
        description="The same JSON with every number that has an exponent, a fraction ending "
        "in 0 or more digits than a double keeps as a string of its exact text (`1.50` -> "
        '`"1.50"`), so that `from_json` keeps it as sent.',
        decode=json_numbers_as_text,
    ),
    Decoder(
        name="dts_avro_json",
        takes="binary: one Alibaba DTS Avro `Record` (a Kafka message value of `dts_avro`)",
        returns="string",
        description="JSON with the header fields, `operation`, `object_name` split into "
        "database/schema/table, `fields`, before/after images as column -> canonical text, "
        "and `ddl_text` for DDL records.",
        decode=dts_avro_json,
    ),
    Decoder(
        name="java_object_json",
        takes="string (base64) or binary: a Java Object Serialization stream (`rO0AB...`)",
        returns="string",
        description="JSON tree of the objects: `@class` and fields, enums, collections as JSON "
        "arrays/objects, back-references resolved, cycles cut. Never loads Java classes.",
        decode=java_object_json,
    ),
    Decoder(
        name="ddl_meta_summary",
        takes="string (base64) or binary: DataWorks `ddl.ddlMeta` (a serialized FastSQL DDLMeta)",
        returns=DDL_META_SUMMARY_TYPE,
        description="The DDL read from the FastSQL AST: `ddl_text`, `statement_type`, `db_type`, "
        "`table_name`, `columns` (action add/drop/modify/rename, name, new_name, data_type).",
        decode=ddl_meta_summary,
    ),
]


def _text_udf(decode: Decode, part: int, name: str) -> Any:
    """A pandas UDF giving part 0 (value) or 1 (error) of `decode` for each value of a batch."""

    def apply(values: pd.Series) -> pd.Series:
        # pandas hands a NULL string over as NaN, a NULL binary as None.
        return pd.Series([decode(None if _is_null(v) else v)[part] for v in values], dtype="object")

    apply.__name__ = name
    return pandas_udf(apply, "string")


def _result_udf(decode: Decode, name: str) -> Any:
    """A pandas UDF giving `struct<value, error>` of a text decoder in one pass."""

    def apply(values: pd.Series) -> pd.DataFrame:
        pairs = [decode(None if _is_null(v) else v) for v in values]
        return pd.DataFrame(
            {"value": [value for value, _ in pairs], "error": [error for _, error in pairs]}
        )

    apply.__name__ = name
    return pandas_udf(apply, "struct<value: string, error: string>")


def _struct_udf(decode: Decode, returns: str, name: str) -> Any:
    """An Arrow-optimised row UDF for struct values (NULL structs must stay NULL)."""

    def apply(value: Any) -> Any:
        return decode(value)[0]

    apply.__name__ = name
    return udf(apply, returns, useArrow=True)


def _is_null(value: Any) -> bool:
    return value is None or (isinstance(value, float) and pd.isna(value))


def sql_names() -> list[str]:
    """Every SQL function name registered: values, `_error` and (text decoders) `_result`."""
    names = []
    for decoder in DECODERS:
        names += [decoder.name, f"{decoder.name}_error"]
        if decoder.returns == "string":
            names.append(f"{decoder.name}_result")
    return names


def register_all(spark: SparkSession) -> list[str]:
    """Register every UDF on the session; returns the SQL names registered."""
    for decoder in DECODERS:
        if decoder.returns == "string":
            value_udf = _text_udf(decoder.decode, 0, decoder.name)
            result_name = f"{decoder.name}_result"
            spark.udf.register(result_name, _result_udf(decoder.decode, result_name))
        else:
            value_udf = _struct_udf(decoder.decode, decoder.returns, decoder.name)
        spark.udf.register(decoder.name, value_udf)
        error_name = f"{decoder.name}_error"
        spark.udf.register(error_name, _text_udf(decoder.decode, 1, error_name))
    return sql_names()
