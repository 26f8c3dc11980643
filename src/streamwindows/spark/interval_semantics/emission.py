"""The interval plan's emission: the pieces of each group (the pandas engine, per group),
each emitted by the stream's smallest start at or after its end (an as-of search in the
distinct starts: broadcast from the driver, or past DISTINCT_VALUES_LIMIT by ranges of
the value axis), and numbered in the pandas engine's order (``emit_seq``)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.interval_semantics import ELEMENT_ARRIVAL, GROUP_FIRST, PIECE_EXISTS_AT, interval_pieces
from streamwindows.spark.incremental import null_safe_match, suffixed
from streamwindows.spark.interval_semantics.stream import (
    FIRST_ARRIVAL,
    START,
    Starts,
    coordinate_of,
    coordinate_type_of,
)
from streamwindows.spark.numbering import range_offsets
from streamwindows.spark.per_group import apply_per_group
from streamwindows.spark.session import cached_until_next
from streamwindows.spark.shipping import default_parallelism, shared_value

_B, _S_STAR, _K = "__piece_end__", "__next_start__", "__range__"
_AT, _FLAG, _EMITTER = "__emitted_at__", "__drained__", "__emitter__"
# Output rows per numbering range; fewer rows are numbered in one task, with no count.
ROWS_PER_RANGE = 1_000_000
# Numbering by ranges caches the rows to count them, which pays only where more tasks
# sort the ranges at once than one task sorts the whole: with this many cores or fewer,
# one task numbers every output. Measured on two cores (2026-11-27, the benchmark's
# stream): one task was faster at 1M events, 1.86M rows (a whole call 5.8-6.7 s against
# 8.7-9.3 s by ranges), and at 3M events (16.4-17.9 s against 21.8-24.1 s).
ONE_TASK_UP_TO_CORES = 2


def emit(fed, options: Mapping[str, Any], groups: list[str], columns: list[str], starts: Starts | None, *,
          whole, first_emit_seq: int = 0, group_firsts=None, starts_from: Any = None):
    """The numbered rows of the pieces of ``fed``'s groups, emitted over the stream of
    ``whole``: its distinct starts (``starts``, or read from ``whole`` from
    ``starts_from`` on, in the general plan) and, when ``group_firsts`` is given (the
    group columns and GROUP_FIRST), each group's first arrival."""
    from pyspark.sql import functions as F

    spark = whole.sparkSession
    start, arrival = options["start"], options["arrival"]
    spark_type = whole.schema[start].dataType.simpleString()
    coordinate_type = coordinate_type_of(spark_type)
    arrival_type = whole.schema[arrival].dataType.simpleString() if arrival else "bigint"
    piece_options = {k: options[k] for k in ("start", "end", "aggregates", "group_by", "arrival",
                                             "latency_optimized", "model")}
    pieces = apply_per_group(
        fed, interval_pieces, piece_options, group_by=groups,
        time_columns=("window_start", "window_end", "emitted_at"), time_source=start,
        declared_types={PIECE_EXISTS_AT: arrival_type, ELEMENT_ARRIVAL: arrival_type,
                        GROUP_FIRST: arrival_type if arrival else spark_type},
        order_by=[arrival, start] if arrival else [start], integer_inputs=[start, options["end"], arrival])
    if group_firsts is not None and groups:  # the pieces' groups, cut: their first arrival is older
        firsts = suffixed(group_firsts, groups, "__first")
        pieces = pieces.drop(GROUP_FIRST)
        pieces = pieces.join(firsts, null_safe_match(pieces, firsts, groups, "__first"), "left").drop(
            *[g + "__first" for g in groups])

    parts = int(spark.conf.get("spark.sql.shuffle.partitions"))
    if starts is not None:
        ranges = min(parts, math.ceil(2 * int(starts.rows.sum()) / ROWS_PER_RANGE))  # about 2 rows per event
        cuts = starts.cuts(ranges)
    else:
        distinct = _distinct_starts(whole, start, arrival, spark_type, starts_from)
        ranges, cuts = parts, _quantile_cuts(distinct, parts)

    def ranged(coordinate):
        return _range_of(coordinate, cuts)

    in_ranges = ranges > 1 and default_parallelism(spark) > ONE_TASK_UP_TO_CORES

    if options["latency_optimized"]:
        rows = pieces.withColumn(_K, ranged(coordinate_of(F.col("window_start"), spark_type)))
        keys = [F.col(ELEMENT_ARRIVAL) if arrival else F.col("window_start"), F.col("window_start"),
                F.col(GROUP_FIRST), *[F.col(g) for g in groups]]
        return _numbered(rows, keys, first_emit_seq, in_ranges).select(*columns)

    end_coordinate = coordinate_of(F.col("window_end"), spark_type)
    if starts is not None:
        table = shared_value(spark, (starts.values, starts.firsts))
        first_type = coordinate_type_of(arrival_type) if arrival else "bigint"

        @F.pandas_udf(f"{_S_STAR} {coordinate_type}, {FIRST_ARRIVAL} {first_type}")
        def next_start(ends: pd.Series) -> pd.DataFrame:
            values, firsts = table.value
            x = ends.to_numpy(dtype=values.dtype)
            at = np.searchsorted(values, x, side="left")
            found = at < len(values)
            safe = np.minimum(at, max(len(values) - 1, 0))

            def column(array):
                if array is None or not len(array):
                    return pd.array([None] * len(x), dtype="Int64")
                found_values = pd.array(array[safe])
                found_values[~found] = None
                return found_values

            return pd.DataFrame({_S_STAR: column(values), FIRST_ARRIVAL: column(firsts)})

        found = next_start(end_coordinate)
        located = pieces.withColumns({_S_STAR: found[_S_STAR], FIRST_ARRIVAL: found[FIRST_ARRIVAL]}).withColumn(
            _AT, _time_of(F.col(_S_STAR), spark_type))
    else:
        ends = pieces.select(end_coordinate.alias(_B)).distinct()
        answers = _next_starts(ends, distinct.select(START), cuts, coordinate_type).join(
            distinct.withColumnRenamed(START, _S_STAR), _S_STAR)
        located = pieces.withColumn(_B, end_coordinate).join(answers, _B, "left")
    emitted = F.col(_S_STAR).isNotNull()
    exists_at = coordinate_of(F.col(PIECE_EXISTS_AT), arrival_type) if starts is not None else F.col(PIECE_EXISTS_AT)
    rows = located.where(emitted | F.lit(bool(options["drain"]))).withColumns({
        "emit_kind": F.when(emitted, F.lit("close")).otherwise(F.lit("drain")),
        "emitted_at": F.col(_AT),
        _FLAG: (~emitted).cast("int"),
        # The emitting event: the first starting at emitted_at, or the one from which the
        # piece exists if it comes later (it starts at the piece's end, = emitted_at).
        _EMITTER: F.when(emitted, F.greatest(F.col(FIRST_ARRIVAL), exists_at)) if arrival
        else F.lit(None).cast("bigint"),
        _K: F.when(emitted, ranged(F.col(_S_STAR))).otherwise(F.lit(len(cuts) + 1)),
    })
    keys = [F.col(_FLAG), F.col(_S_STAR), F.col(_EMITTER), F.col("window_start"), F.col(GROUP_FIRST),
            *[F.col(g) for g in groups]]
    return _numbered(rows, keys, first_emit_seq, in_ranges).select(*columns)


def _time_of(coordinate, spark_type: str):
    """A coordinate back to the time column's type."""
    from pyspark.sql import functions as F

    if spark_type.startswith("timestamp"):
        return F.timestamp_micros(coordinate).cast(spark_type)
    return coordinate.cast(spark_type)


def _distinct_starts(whole, start: str, arrival: str | None, spark_type: str, starts_from: Any):
    """The general plan's distinct starts: the start (as ``_AT``), its coordinate and its
    first arrival."""
    from pyspark.sql import functions as F

    starts = whole if starts_from is None else whole.where(F.col(start) >= F.lit(starts_from))
    if arrival:
        distinct = starts.groupBy(F.col(start).alias(_AT)).agg(F.min(F.col(arrival)).alias(FIRST_ARRIVAL))
    else:
        distinct = starts.select(F.col(start).alias(_AT)).distinct().withColumn(FIRST_ARRIVAL,
                                                                                F.lit(None).cast("bigint"))
    return distinct.where(F.col(_AT).isNotNull()).withColumn(START, coordinate_of(F.col(_AT), spark_type))


def _quantile_cuts(distinct, ranges: int) -> list[float]:
    """Cuts of the value axis at quantiles of the distinct starts (coordinates)."""
    if ranges <= 1:
        return []
    found = distinct.approxQuantile(START, [i / ranges for i in range(1, ranges)], 0.01)
    return sorted({float(c) for c in found if c is not None and np.isfinite(c)})


def _range_of(x, cuts: list[float]):
    """The number of cuts <= x: the range of the value axis holding x (a balanced
    comparison tree, no Python worker)."""
    from pyspark.sql import functions as F

    def pick(first: int, last: int):
        if first == last:
            return F.lit(first)
        middle = (first + last + 1) // 2
        return F.when(x < F.lit(cuts[middle - 1]), pick(first, middle - 1)).otherwise(pick(middle, last))

    return pick(0, len(cuts))


def _next_starts(ends, starts, cuts: list[float], coordinate_type: str):
    """(``_B``, ``_S_STAR``): for each end, the smallest start >= it (NULL if none), by
    ranges of the value axis (a cogroup task each)."""
    from pyspark.sql import functions as F

    starts = starts.withColumn(_K, _range_of(F.col(START), cuts))
    lowest = {r[_K]: r["lowest"] for r in starts.groupBy(_K).agg(F.min(START).alias("lowest")).collect()}
    after: dict[int, Any] = {}  # range -> the smallest start of the ranges after it
    running = None
    for k in range(len(cuts), -1, -1):
        after[k] = running
        if lowest.get(k) is not None:
            running = lowest[k]
    dtype = np.int64 if coordinate_type == "bigint" else np.float64
    nullable = "Int64" if coordinate_type == "bigint" else "Float64"

    def search(ends_here: pd.DataFrame, starts_here: pd.DataFrame) -> pd.DataFrame:
        if not len(ends_here):
            return pd.DataFrame({_B: pd.Series(dtype=dtype), _S_STAR: pd.Series(dtype=nullable)})
        k = int(ends_here[_K].iloc[0])
        values = np.sort(starts_here[START].to_numpy(dtype=dtype))
        b = ends_here[_B].to_numpy(dtype=dtype)
        at = np.searchsorted(values, b, side="left")
        found = at < len(values)
        answer = pd.array(np.where(found, values[np.minimum(at, max(len(values) - 1, 0))] if len(values) else 0,
                                   after[k] if after[k] is not None else 0).astype(dtype), dtype=nullable)
        answer[~found & (after[k] is None)] = pd.NA
        return pd.DataFrame({_B: b, _S_STAR: answer})

    return (ends.withColumn(_K, _range_of(F.col(_B), cuts)).groupBy(_K)
            .cogroup(starts.groupBy(_K))
            .applyInPandas(search, f"{_B} {coordinate_type}, {_S_STAR} {coordinate_type}"))


def _numbered(rows, keys: list, first_emit_seq: int, ranged: bool):
    """``rows`` numbered by (``_K``, ``keys``): emit_seq from ``first_emit_seq``. Ranged:
    within each range ``_K`` (ranges in output order), after the rows of the earlier
    ranges, whose counts one job gives (the rows are cached for it; the numbers do not
    depend on the cache, the keys order the rows totally); else in one task."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    order = [k.asc_nulls_first() for k in keys]
    if not ranged:
        whole = Window.orderBy(F.col(_K), *order)
        return rows.withColumn("emit_seq", F.lit(first_emit_seq).cast("bigint") + F.row_number().over(whole) - 1)
    rows = cached_until_next(rows, StorageLevel.MEMORY_AND_DISK)
    offset_map = range_offsets(dict(rows.groupBy(_K).count().collect()), first_emit_seq)
    within = Window.partitionBy(_K).orderBy(*order)
    return rows.withColumn("emit_seq", F.element_at(offset_map, F.col(_K)) + F.row_number().over(within) - 1)
