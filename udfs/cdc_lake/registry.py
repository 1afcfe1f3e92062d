"""Every SQL function cdc-lake adds to Spark, registered in one place.

Each UDF is a pure Python function tested without Spark (the modules beside this one),
wrapped here as a vectorised (Arrow / pandas) UDF so that Spark hands it whole batches rather
than one row at a time. Bad input never raises inside a Spark task: the value function gives
NULL and its companion `<name>_error` function gives the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pandas as pd
from pyspark.sql import SparkSession
from pyspark.sql.functions import pandas_udf

from cdc_lake.byte_codecs import decode_byte_list


@dataclass(frozen=True)
class UdfSpec:
    """One SQL function: its name, what it takes and gives, and the pure function behind it."""

    name: str
    signature: str
    returns: str
    description: str
    function: Callable[[str | None], tuple[str | None, str | None]]
    part: int  # 0: the value, 1: the error reason


def _value_and_error(
    name: str, signature: str, description: str, function: Callable
) -> list[UdfSpec]:
    """The pair `name` (value or NULL) and `name_error` (reason or NULL) of one decoder."""
    return [
        UdfSpec(name, signature, "string", description, function, 0),
        UdfSpec(
            f"{name}_error",
            signature,
            "string",
            f"Why `{name}` gave NULL for a non-NULL input; NULL when it succeeded.",
            function,
            1,
        ),
    ]


UDFS: list[UdfSpec] = _value_and_error(
    "byte_list_to_base64",
    "byte_list_to_base64(text string) -> string",
    "Huawei DRS byte list `[106, 103, 111]` (signed or unsigned values, `[]` = empty) to "
    "standard base64 (`amdv`).",
    decode_byte_list,
)


def _vectorised(spec: UdfSpec):
    """A pandas UDF applying the spec's pure function to each value of a batch."""
    function, part = spec.function, spec.part

    def apply(values: pd.Series) -> pd.Series:
        return pd.Series(
            [function(None if pd.isna(v) else v)[part] for v in values], dtype="object"
        )

    apply.__name__ = spec.name
    return pandas_udf(apply, spec.returns)


def register_all(spark: SparkSession) -> list[str]:
    """Register every UDF on the session; returns the SQL names registered."""
    for spec in UDFS:
        spark.udf.register(spec.name, _vectorised(spec))
    return [spec.name for spec in UDFS]
