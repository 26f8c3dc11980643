"""The Spark layer's shared column vocabulary: the internal names the plans give the
arrival position and the field's coordinate, identifier quoting, and the two-way map
between Spark's simple types and the pandas dtypes applyInPandas hands the engine."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["PANDAS_TYPES", "SEQ", "VALUE", "aggregate_spark_type", "list_aggregate_types", "plain", "quote",
           "spark_type_for"]

SEQ, VALUE = "__seq__", "__value__"  # the arrival position and the field's coordinate

# Spark simple type names -> the pandas dtype applyInPandas hands the engine.
PANDAS_TYPES = {
    "tinyint": "int8", "smallint": "int16", "int": "int32", "bigint": "int64",
    "float": "float32", "double": "float64", "boolean": "bool", "string": "object",
    "timestamp": "datetime64[ns]", "timestamp_ntz": "datetime64[ns]", "date": "object",
}


def spark_type_for(dtype: Any) -> str:
    """Spark DDL type of a pandas result dtype."""
    kind = pd.api.types.pandas_dtype(dtype)
    if pd.api.types.is_bool_dtype(kind):
        return "boolean"
    if pd.api.types.is_integer_dtype(kind):
        return {1: "tinyint", 2: "smallint", 4: "int"}.get(kind.itemsize, "bigint")
    if pd.api.types.is_float_dtype(kind):
        return "float" if kind.itemsize == 4 else "double"
    if pd.api.types.is_datetime64_any_dtype(kind):
        return "timestamp"
    return "string"


# The aggregate functions whose result is a list of the input's values (an object column
# in pandas): on Spark, an array of the input column's type.
LIST_FUNCTIONS = ("nest", "distinctnest")


def aggregate_spark_type(aggregate: Any, schema: Mapping[str, str]) -> str:
    """The Spark type of a parsed aggregate's output over an input of Spark types
    ``schema``: an array of the input column's type for the list functions, else the
    Spark type of the pandas dtype the engine gives."""
    if aggregate.function.name in LIST_FUNCTIONS:
        return f"array<{schema[aggregate.columns[0]]}>"
    input_dtypes = {name: PANDAS_TYPES.get(kind, "object") for name, kind in schema.items()}
    return spark_type_for(aggregate.result_dtype(input_dtypes))


def list_aggregate_types(aggregates: Any, schema: Mapping[str, str], function: str) -> dict[str, str]:
    """{output: array type} for the list aggregates among ``aggregates`` (the engines'
    spec mapping; a bad spec is left to the engine's own check, which names it)."""
    from streamwindows.range_aggregates import parse_aggregates

    if not isinstance(aggregates, Mapping):
        return {}
    try:
        parsed = parse_aggregates(aggregates, list(schema), function)
    except ValueError:
        return {}
    return {a.name: aggregate_spark_type(a, schema) for a in parsed if a.function.name in LIST_FUNCTIONS}


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def plain(value: Any) -> Any:
    """A value as plain Python for a message or a literal: numpy scalars unwrapped,
    timestamps as text, NaN as None."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, pd.Timestamp):
        return str(value)
    return None if value is None or (isinstance(value, float) and np.isnan(value)) else value
