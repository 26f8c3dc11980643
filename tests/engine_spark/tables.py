"""What the Spark layer's tests compare: an engine's rows against another's, and a
table built batch by batch (each run's rows written by dynamic partition overwrite, as
dbt's insert_overwrite does) against one full build."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.engine.reference_field_dimension import rows
from tests.engine_spark.streams import SCHEMA


def same_rows(actual: pd.DataFrame, expected: pd.DataFrame, key: list[str]):
    columns = [c for c in expected.columns if c != "emit_seq"]
    order = lambda frame: frame[columns].sort_values(key, ignore_index=True)  # noqa: E731
    got, want = rows(order(actual)), rows(order(expected))
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a == pytest.approx(b, nan_ok=True), (a, b)


def same_ordered_rows(actual: pd.DataFrame, expected: pd.DataFrame):
    """The same columns and rows, emit_seq included, in emit_seq order."""
    assert list(actual.columns) == list(expected.columns)
    got, want = rows(actual.sort_values("emit_seq", ignore_index=True)), rows(expected)
    assert len(got) == len(want), (got, want)
    for a, b in zip(got, want, strict=True):
        assert a == pytest.approx(b, nan_ok=True), (a, b)


def partition_key(value) -> object:
    return "open" if pd.isna(value) else value


def overwrite(table: pd.DataFrame | None, written: pd.DataFrame) -> pd.DataFrame:
    """The table after an insert overwrite of `written` with dynamic partitions: every
    partition `written` has rows for is replaced, the others kept."""
    if table is None:
        return written
    replaced = set(written["time_partition"].map(partition_key))
    kept = table[~table["time_partition"].map(partition_key).isin(replaced)]
    return pd.concat([kept, written], ignore_index=True)


def build_in_batches(spark, incremental, frame: pd.DataFrame, cuts, input_schema=SCHEMA, check_written=None,
                     **options) -> pd.DataFrame:
    """The table after one run of ``incremental`` (an engine's incremental function) per
    cut, each over the rows that have arrived by then and the table so far;
    ``check_written(rows)`` sees each run's rows before they are written."""
    table, schema = None, None
    for cut in cuts:
        previous = None if table is None else spark.createDataFrame(table, schema)
        batch = incremental(spark.createDataFrame(frame.iloc[:cut], input_schema), previous, **options)
        written = batch.toPandas()
        if check_written is not None:
            check_written(written)
        table, schema = overwrite(table, written), batch.schema
    return table
