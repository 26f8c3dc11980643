"""Run a per-group pandas engine on Spark, groups in parallel.

For the engines whose groups are independent (StreamInsight count windows), or the
per-group part of an engine (Odysseus interval semantics: a group's pieces and their
aggregates; spark/interval_semantics/ decides their emission over the whole stream).
Parameters are checked on the driver by running the engine on an empty frame of the
input's schema (no Spark job), so a bad parameter fails before any work starts; the
same run gives the output columns and their types.

The rows are hash-partitioned by group and sorted by group (then by ``order_by``), and
each task hands the engine many whole groups per call: the engines are vectorized
across groups, so one call per group (``applyInPandas``) would spend most of its time
in per-call overhead when groups are small (1,000 rows each: 2.5x slower here). A call
never splits a group, and the rows a task holds at once are bounded: a batch is cut
after the last complete group once it reaches ``batch_rows`` rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.spark.columns import PANDAS_TYPES, list_aggregate_types, quote, spark_type_for

# The engines' emit_seq orders rows across the groups of one call, which are not all
# the groups, so it is left out here.
PER_CALL_ONLY = ("emit_seq",)
_BATCH_ROWS = 200_000


def apply_per_group(
    df,
    engine: Callable[..., pd.DataFrame],
    options: Mapping[str, Any],
    *,
    group_by: Sequence[str],
    time_columns: Sequence[str],
    time_source: str,
    declared_types: Mapping[str, str] | None = None,
    order_by: Sequence[str] = (),
    integer_inputs: Sequence[str] = (),
    batch_rows: int = _BATCH_ROWS,
):
    """``engine(frame, **options)`` for every group of ``df``. Output columns in
    ``time_columns`` take the Spark type of the input column ``time_source``; columns in
    ``declared_types`` the type given; group columns keep theirs; the rest follow the
    pandas dtype the engine gives on an empty input, but for the list aggregates (nest,
    distinctnest: arrays of the input column's type). ``order_by`` orders each group's
    rows before the engine sees them (the engines break arrival ties by row order).
    ``integer_inputs`` (times, arrival) keep an integer dtype when they hold a NULL
    (see :func:`restore_integers`)."""
    from streamwindows.spark.shipping import ship_package

    probe = engine(empty_frame(df), **options)  # validates; raises before any Spark job
    input_schema = {f.name: f.dataType.simpleString() for f in df.schema.fields}
    declared = {**list_aggregate_types(options.get("aggregates"), input_schema, "aggregates"), **(declared_types or {})}
    names = [c for c in probe.columns if c not in PER_CALL_ONLY]
    fields = []
    for column in names:
        if column in declared:
            spark_type = declared[column]
        elif column in group_by:
            spark_type = df.schema[column].dataType.simpleString()
        elif column in time_columns:
            spark_type = df.schema[time_source].dataType.simpleString()
        else:
            spark_type = spark_type_for(probe[column].dtype)
        fields.append(f"{quote(column)} {spark_type}")

    group_by = list(group_by)
    integers = integral_columns(df, integer_inputs)

    def run(batches: Iterator[pd.DataFrame]) -> Iterator[pd.DataFrame]:
        pending: list[pd.DataFrame] = []
        rows, next_cut = 0, batch_rows
        for batch in batches:
            pending.append(restore_integers(batch, integers))
            rows += len(batch)
            if rows >= next_cut:
                frame = pd.concat(pending, ignore_index=True)
                cut = _last_group_start(frame, group_by)
                if cut > 0:
                    yield engine(frame.iloc[:cut], **options)[names]
                    pending, rows, next_cut = [frame.iloc[cut:]], len(frame) - cut, batch_rows
                else:  # one group so far, which must stay whole: look again at twice the size
                    pending, next_cut = [frame], 2 * rows
        if rows:
            yield engine(pd.concat(pending, ignore_index=True), **options)[names]

    ship_package(df.sparkSession)
    if group_by:
        # No partition count: Spark's adaptive execution may then merge small partitions
        # (whole hash partitions, so whole groups). A scheduled run's few new rows go to
        # one or two Python tasks instead of one per shuffle partition (three incremental
        # runs of 300 rows: 0.57-0.62 of the time, docs/spark-plans.md).
        laid_out = df.repartition(*group_by).sortWithinPartitions(*group_by, *order_by)
    else:
        laid_out = df.repartition(1).sortWithinPartitions(*order_by) if order_by else df.repartition(1)
    return laid_out.mapInPandas(run, schema=", ".join(fields))


def empty_frame(df) -> pd.DataFrame:
    """An empty pandas frame with the columns of the Spark DataFrame ``df`` and the dtypes
    applyInPandas would give them: run an engine on it to check parameters (no Spark job)."""
    return pd.DataFrame({f.name: pd.Series(dtype=PANDAS_TYPES.get(f.dataType.simpleString(), "object"))
                         for f in df.schema.fields})


def integral_columns(df, columns: Sequence[str | None]) -> list[str]:
    """Those of ``columns`` that are integer columns of the Spark DataFrame ``df``."""
    names = set(df.columns)
    return [c for c in columns if c in names and df.schema[c].dataType.simpleString() in
            ("tinyint", "smallint", "int", "bigint")]


def restore_integers(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """Arrow hands pandas a Spark integer column that holds a NULL as float64 (NaN): an
    engine would refuse it as a float time instead of naming the NULL row. Give
    ``columns`` their integer kind back (pandas' nullable Int64)."""
    for column in columns:
        if frame[column].dtype.kind == "f":
            frame[column] = frame[column].astype("Int64")
    return frame


def _last_group_start(frame: pd.DataFrame, group_by: list[str]) -> int:
    """Where the last group of a frame sorted by group begins (NULL keys are a group)."""
    if not group_by:
        return 0
    same = np.ones(len(frame), dtype=bool)
    for column in group_by:
        values = frame[column]
        last = values.iloc[-1]
        same &= values.isna().to_numpy() if pd.isna(last) else (values == last).to_numpy()
    differs = np.flatnonzero(~same)
    return int(differs[-1]) + 1 if len(differs) else 0
