"""Odysseus interval (validity) semantics on Spark.

The input is one stream ordered by start across all groups, and time is shared by the
groups (docs/semantics.md, Odysseus section, as :func:`streamwindows.interval_aggregate`
decides): a piece of group g is emitted by the first event of *any* group that starts at
or after its end, once the piece exists (its end is a boundary of g). So the work splits
in two:

* **Pieces** depend on their group's events only: each group's events go whole to one
  engine call (:func:`streamwindows.interval_semantics.interval_pieces`, many groups per
  call: spark/per_group.py), which gives every piece, its aggregates, the arrival from
  which it exists and the group's first arrival.
* **Emission** needs the whole stream: ``emitted_at`` is the smallest start of the
  stream >= the piece's end, an as-of search of the piece's end in the stream's sorted
  distinct starts, as the field dimension's value-range plan finds its closes
  (spark/field_dimension_ranges.py). One aggregation over the distinct starts (each
  with its first and last arrival) gives them to the driver, which broadcasts them to a
  search in the engine's tasks; the same table checks the arrival order (the stream is
  ordered iff each start's arrivals all come before the next start's). The emitting
  event is the later of the first event starting at ``emitted_at`` and the event from
  which the piece exists.

Past DISTINCT_VALUES_LIMIT distinct starts the general plan runs instead: the stream,
range-partitioned by arrival, checks its order per partition (the driver checks the
boundaries), and the as-of search is a cogroup of the pieces' distinct ends with the
distinct starts by ranges of the value axis (cut at quantiles of the starts); an end with
no start after it in its range takes the next ranges' smallest start, which the driver
knows from one row per range.

An event starting before the previous one fails with the OutOfOrderError that names
both events' groups (the exact check runs when the cheap one finds a problem).
``emit_seq`` numbers the rows in the pandas engine's order (emitting event, then piece
start, then the group's first arrival; drains last): over one task for small outputs
or on a machine of ONE_TASK_UP_TO_CORES cores or fewer, else per range of
``emitted_at``, with offsets from the ranges' counts.
``dump_at_value_count`` is refused here.

Scheduled runs (:func:`interval_aggregate_incremental_spark`, docs/semantics.md, Incremental runs section)
rebuild only what new events can change; see its docstring.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.errors import InvalidParameterError, OutOfOrderError
from streamwindows.interval_semantics import (
    ELEMENT_ARRIVAL,
    GROUP_FIRST,
    PIECE_EXISTS_AT,
    interval_aggregate,
    interval_pieces,
)
from streamwindows.spark.columns import plain
from streamwindows.spark.field_dimension_ranges import DISTINCT_VALUES_LIMIT
from streamwindows.spark.fingerprints import InputFingerprints
from streamwindows.spark.incremental import (
    group_on_driver,
    null_safe_match,
    require_time_partition,
    suffixed,
    time_partitioner,
)
from streamwindows.spark.late_rows import late_rows_policy
from streamwindows.spark.numbering import range_offsets
from streamwindows.spark.per_group import apply_per_group, empty_frame
from streamwindows.spark.session import cached_until_next
from streamwindows.spark.shipping import ship_package

SPARK_FUNCTION = "interval_aggregate_spark"
INCREMENTAL_FUNCTION = "interval_aggregate_incremental_spark"
_B, _S, _S_STAR, _P, _K = "__piece_end__", "__start__", "__next_start__", "__first_arrival__", "__range__"
_AT, _FLAG, _EMITTER = "__emitted_at__", "__drained__", "__emitter__"
_NUMERIC = ("tinyint", "smallint", "int", "bigint", "float", "double")
# Output rows per numbering range; fewer rows are numbered in one task, with no count.
ROWS_PER_RANGE = 1_000_000
# Numbering by ranges caches the rows to count them, which pays only where more tasks
# sort the ranges at once than one task sorts the whole: with this many cores or fewer,
# one task numbers every output. Measured on two cores (2026-11-27, the benchmark's
# stream): one task was faster at 1M events, 1.86M rows (a whole call 5.8-6.7 s against
# 8.7-9.3 s by ranges), and at 3M events (16.4-17.9 s against 21.8-24.1 s).
ONE_TASK_UP_TO_CORES = 2


def interval_aggregate_spark(
    df,
    *,
    start: str,
    end: str,
    aggregates: Mapping[str, Any],
    group_by: Sequence[str] | str | None = None,
    arrival: str | None = None,
    drain: bool = True,
    latency_optimized: bool = False,
    dump_at_value_count: int | None = None,
    model: str | None = None,
):
    """Interval semantics over a Spark DataFrame: the rows of
    :func:`streamwindows.interval_aggregate`, ``emit_seq`` included (numbered over the
    whole output). Raises InvalidParameterError before any Spark job, and OutOfOrderError
    (with ``arrival``) when an event starts before the previous one, naming both events'
    groups, values and arrival positions. Without ``arrival`` the arrival order is the
    start order; Spark has no row order, so ties between equal starts (FIRST, LAST, NTH,
    NEST within a group, and ``emit_seq`` between groups whose first events start
    together, then ordered by the group columns) are not the pandas engine's row order.
    """
    if dump_at_value_count is not None:
        raise InvalidParameterError(
            SPARK_FUNCTION, "dump_at_value_count", "None on Spark (it counts elements across all groups, which "
            "the per-group plan cannot see; use the pandas interval_aggregate)", dump_at_value_count, model=model)
    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    options = dict(start=start, end=end, aggregates=aggregates, group_by=groups or None, arrival=arrival,
                   drain=drain, latency_optimized=latency_optimized, model=model)
    columns = list(interval_aggregate(empty_frame(df), **options).columns)  # validates: no Spark job
    ship_package(df.sparkSession)
    starts = _Starts.of(df, start=start, end=end, arrival=arrival)
    if starts is not None:
        if starts.out_of_order:  # the exact check names the first offending event
            check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
            raise AssertionError("the arrival-order check passed on a stream whose starts' arrivals overlap")
    elif arrival is not None:
        check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
    return _emit(df, options, groups, columns, starts, whole=df)


@dataclass
class _Starts:
    """The stream's distinct starts (coordinates, sorted) with each one's first arrival
    (coordinates) and rows, from one aggregation; ``has_null``: a NULL start, end or
    arrival (the engine names it), ``out_of_order``: some start's arrivals are not all
    before the next start's."""

    values: np.ndarray
    firsts: np.ndarray | None
    rows: np.ndarray
    has_null: bool
    out_of_order: bool

    @classmethod
    def of(cls, df, *, start: str, end: str, arrival: str | None) -> _Starts | None:
        """None past DISTINCT_VALUES_LIMIT distinct starts, or with an arrival column that
        is neither a number nor a timestamp."""
        import pyarrow.compute as pc
        from pyspark.sql import functions as F

        spark_type = df.schema[start].dataType.simpleString()
        aggregates = [F.count(F.lit(1)).alias("rows"), F.count(F.col(end)).alias("ends")]
        if arrival is not None:
            arrival_type = df.schema[arrival].dataType.simpleString()
            if not (arrival_type in _NUMERIC or arrival_type.startswith("timestamp")):
                return None
            position = _coordinate(F.col(arrival), arrival_type)
            aggregates += [F.min(position).alias("first"), F.max(position).alias("last"),
                           F.count(F.col(arrival)).alias("arrivals")]
        table = (df.groupBy(_coordinate(F.col(start), spark_type).alias(_S)).agg(*aggregates)
                 .limit(DISTINCT_VALUES_LIMIT + 1).toArrow())
        if table.num_rows > DISTINCT_VALUES_LIMIT:
            return None
        has_null = table.column(_S).null_count > 0
        table = table.filter(pc.is_valid(table.column(_S)))
        rows = table.column("rows").to_numpy().astype(np.int64)
        has_null = has_null or bool((table.column("ends").to_numpy() < rows).any())
        if arrival is not None:
            has_null = has_null or bool((table.column("arrivals").to_numpy() < rows).any())
        order = np.argsort(table.column(_S).to_numpy(), kind="stable")
        values = table.column(_S).to_numpy()[order]
        firsts, out_of_order = None, False
        if arrival is not None and not has_null:
            firsts = table.column("first").to_numpy()[order]
            lasts = table.column("last").to_numpy()[order]
            out_of_order = bool((lasts[:-1] > firsts[1:]).any())
        return cls(values=values, firsts=firsts, rows=rows[order], has_null=has_null, out_of_order=out_of_order)

    def cuts(self, ranges: int) -> list[float]:
        """Starts that cut the value axis into about ``ranges`` ranges of equal rows."""
        if ranges <= 1 or not len(self.values):
            return []
        cumulative = np.cumsum(self.rows)
        picks = np.searchsorted(cumulative, np.arange(1, ranges) * cumulative[-1] / ranges, side="right")
        picked = self.values[np.minimum(picks, len(self.values) - 1)]
        return sorted({float(c) for c in picked if c > self.values[0]})


def check_stream_order(df, *, start: str, arrival: str, group_by: Sequence[str], model: str | None = None,
                       position_offset: int = 0) -> int:
    """Raise OutOfOrderError at the first event, in ``arrival`` order, that starts before
    the previous event (any group), naming both events (arrival position, ``arrival``
    value, group, start). One Spark job: each range of arrivals checks itself and
    returns a summary row, the driver checks the boundaries. NULL starts or arrivals
    are left to the engine (it raises NullFieldError before any order error).
    ``position_offset`` is the number of events arriving before ``df``'s. Returns the
    number of rows."""
    from pyspark.sql import functions as F


    groups = list(group_by)
    spark_type = df.schema[start].dataType.simpleString()
    coordinate_type = _coordinate_type(spark_type)
    stream = df.select(F.col(arrival).alias(_P), _coordinate(F.col(start), spark_type).alias(_S),
                       *[F.col(g) for g in groups])
    names = ["n", "nulls", "first_arrival", "first_start", "first_group", "last_start", "last_group",
             "bad_index", "bad_arrival", "bad_start", "bad_group", "bad_previous", "bad_previous_group"]
    arrival_type = df.schema[arrival].dataType.simpleString()
    schema = (f"n long, nulls long, first_arrival {arrival_type}, first_start {coordinate_type}, "
              f"first_group string, last_start {coordinate_type}, last_group string, bad_index long, "
              f"bad_arrival {arrival_type}, bad_start {coordinate_type}, bad_group string, "
              f"bad_previous {coordinate_type}, bad_previous_group string")

    def summarize(batches):
        chunk = [b for b in batches if len(b)]
        if not chunk:
            return
        chunk = pd.concat(chunk, ignore_index=True)
        arrivals, starts = chunk[_P], chunk[_S]

        def group(i: int) -> str:
            return json.dumps({g: plain(chunk[g].iloc[i]) for g in groups})

        row: dict[str, Any] = dict.fromkeys(names)
        row.update(n=len(chunk), nulls=int(arrivals.isna().sum() + starts.isna().sum()),
                   first_arrival=plain(arrivals.iloc[0]), first_start=plain(starts.iloc[0]), first_group=group(0),
                   last_start=plain(starts.iloc[-1]), last_group=group(-1))
        values = starts.to_numpy()
        back = np.flatnonzero(values[1:] < values[:-1])  # NULLs compare False: counted above
        if len(back):
            i = int(back[0]) + 1
            row.update(bad_index=i, bad_arrival=plain(arrivals.iloc[i]), bad_start=plain(starts.iloc[i]),
                       bad_group=group(i), bad_previous=plain(starts.iloc[i - 1]), bad_previous_group=group(i - 1))
        yield pd.DataFrame([row], columns=names, dtype=object)

    summaries = [r.asDict() for r in stream.repartitionByRange(_P).sortWithinPartitions(_P, _S)
                 .mapInPandas(summarize, schema).collect()]
    if any(s["nulls"] for s in summaries):
        return sum(s["n"] for s in summaries)  # the engine names the NULL row
    summaries.sort(key=lambda s: s["first_arrival"])
    offset, previous = position_offset, None
    for s in summaries:
        if previous is not None and s["first_start"] < previous["last_start"]:
            s = {**s, "bad_index": 0, "bad_arrival": s["first_arrival"], "bad_start": s["first_start"],
                 "bad_group": s["first_group"], "bad_previous": previous["last_start"],
                 "bad_previous_group": previous["last_group"]}
        if s["bad_index"] is not None:
            position = offset + int(s["bad_index"])
            raise OutOfOrderError(
                field=start, position=position, group=json.loads(s["bad_group"]),
                value=_from_coordinate(s["bad_start"], spark_type),
                previous_value=_from_coordinate(s["bad_previous"], spark_type), seq=s["bad_arrival"],
                previous_position=position - 1, previous_group=json.loads(s["bad_previous_group"]), model=model,
            )
        offset += s["n"]
        previous = s
    return offset - position_offset


def _coordinate_type(spark_type: str) -> str:
    return "bigint" if spark_type.startswith("timestamp") or spark_type in ("tinyint", "smallint", "int",
                                                                             "bigint") else "double"


def _coordinate(column, spark_type: str):
    """A time as a number that orders and compares like it: microseconds for timestamps."""
    from pyspark.sql import functions as F

    if spark_type.startswith("timestamp"):
        return F.unix_micros(column.cast("timestamp"))
    if spark_type in _NUMERIC:
        return column.cast(_coordinate_type(spark_type))
    return column  # an arrival column of another type: compared as it is (general plan)


def _time_of(coordinate, spark_type: str):
    """A coordinate back to the time column's type."""
    from pyspark.sql import functions as F

    if spark_type.startswith("timestamp"):
        return F.timestamp_micros(coordinate).cast(spark_type)
    return coordinate.cast(spark_type)


def _from_coordinate(value: Any, spark_type: str) -> Any:
    if value is None or not spark_type.startswith("timestamp"):
        return value
    return pd.Timestamp(int(value), unit="us", tz="UTC")


def _emit(fed, options: Mapping[str, Any], groups: list[str], columns: list[str], starts: _Starts | None, *,
          whole, first_emit_seq: int = 0, group_firsts=None, starts_from: Any = None):
    """The numbered rows of the pieces of ``fed``'s groups, emitted over the stream of
    ``whole``: its distinct starts (``starts``, or read from ``whole`` from
    ``starts_from`` on, in the general plan) and, when ``group_firsts`` is given (the
    group columns and GROUP_FIRST), each group's first arrival."""
    from pyspark.sql import functions as F

    spark = whole.sparkSession
    start, arrival = options["start"], options["arrival"]
    spark_type = whole.schema[start].dataType.simpleString()
    coordinate_type = _coordinate_type(spark_type)
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

    in_ranges = ranges > 1 and spark.sparkContext.defaultParallelism > ONE_TASK_UP_TO_CORES

    if options["latency_optimized"]:
        rows = pieces.withColumn(_K, ranged(_coordinate(F.col("window_start"), spark_type)))
        keys = [F.col(ELEMENT_ARRIVAL) if arrival else F.col("window_start"), F.col("window_start"),
                F.col(GROUP_FIRST), *[F.col(g) for g in groups]]
        return _numbered(rows, keys, first_emit_seq, in_ranges).select(*columns)

    end_coordinate = _coordinate(F.col("window_end"), spark_type)
    if starts is not None:
        table = spark.sparkContext.broadcast((starts.values, starts.firsts))
        first_type = _coordinate_type(arrival_type) if arrival else "bigint"

        @F.pandas_udf(f"{_S_STAR} {coordinate_type}, {_P} {first_type}")
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

            return pd.DataFrame({_S_STAR: column(values), _P: column(firsts)})

        found = next_start(end_coordinate)
        located = pieces.withColumns({_S_STAR: found[_S_STAR], _P: found[_P]}).withColumn(
            _AT, _time_of(F.col(_S_STAR), spark_type))
    else:
        ends = pieces.select(end_coordinate.alias(_B)).distinct()
        answers = _next_starts(ends, distinct.select(_S), cuts, coordinate_type).join(
            distinct.withColumnRenamed(_S, _S_STAR), _S_STAR)
        located = pieces.withColumn(_B, end_coordinate).join(answers, _B, "left")
    emitted = F.col(_S_STAR).isNotNull()
    exists_at = _coordinate(F.col(PIECE_EXISTS_AT), arrival_type) if starts is not None else F.col(PIECE_EXISTS_AT)
    rows = located.where(emitted | F.lit(bool(options["drain"]))).withColumns({
        "emit_kind": F.when(emitted, F.lit("close")).otherwise(F.lit("drain")),
        "emitted_at": F.col(_AT),
        _FLAG: (~emitted).cast("int"),
        # The emitting event: the first starting at emitted_at, or the one from which the
        # piece exists if it comes later (it starts at the piece's end, = emitted_at).
        _EMITTER: F.when(emitted, F.greatest(F.col(_P), exists_at)) if arrival else F.lit(None).cast("bigint"),
        _K: F.when(emitted, ranged(F.col(_S_STAR))).otherwise(F.lit(len(cuts) + 1)),
    })
    keys = [F.col(_FLAG), F.col(_S_STAR), F.col(_EMITTER), F.col("window_start"), F.col(GROUP_FIRST),
            *[F.col(g) for g in groups]]
    return _numbered(rows, keys, first_emit_seq, in_ranges).select(*columns)


def _distinct_starts(whole, start: str, arrival: str | None, spark_type: str, starts_from: Any):
    """The general plan's distinct starts: the start (as ``_AT``), its coordinate and its
    first arrival."""
    from pyspark.sql import functions as F

    starts = whole if starts_from is None else whole.where(F.col(start) >= F.lit(starts_from))
    if arrival:
        distinct = starts.groupBy(F.col(start).alias(_AT)).agg(F.min(F.col(arrival)).alias(_P))
    else:
        distinct = starts.select(F.col(start).alias(_AT)).distinct().withColumn(_P, F.lit(None).cast("bigint"))
    return distinct.where(F.col(_AT).isNotNull()).withColumn(_S, _coordinate(F.col(_AT), spark_type))


def _quantile_cuts(distinct, ranges: int) -> list[float]:
    """Cuts of the value axis at quantiles of the distinct starts (coordinates)."""
    if ranges <= 1:
        return []
    found = distinct.approxQuantile(_S, [i / ranges for i in range(1, ranges)], 0.01)
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

    starts = starts.withColumn(_K, _range_of(F.col(_S), cuts))
    lowest = {r[_K]: r["lowest"] for r in starts.groupBy(_K).agg(F.min(_S).alias("lowest")).collect()}
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
        values = np.sort(starts_here[_S].to_numpy(dtype=dtype))
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


def interval_aggregate_incremental_spark(
    df,
    previous,
    *,
    start: str,
    end: str,
    aggregates: Mapping[str, Any],
    arrival: str,
    group_by: Sequence[str] | str | None = None,
    partition: Any = "day",
    late_rows: str = "error",
    this: str | None = None,
    model: str | None = None,
):
    """What a scheduled run of an interval-semantics model writes: the output of
    :func:`interval_aggregate_spark` (with drain) plus ``time_partition``, the day (or
    month's first day, ``partition='month'``, or numeric bucket of size ``partition``) of
    ``emitted_at``, NULL for the pieces still
    open (drained). For a dbt Python model configured
    ``materialized='incremental', incremental_strategy='insert_overwrite',
    partition_by=['time_partition']``: dynamic partition overwrite replaces exactly
    the partitions this returns rows for, and after any sequence of runs the table
    holds a full build's rows (``emit_seq`` included).

    ``df`` is the whole input so far; ``previous`` the model's table (None on a full
    build). The state is the table itself:

    * The open pieces (the drain rows) tell the stream's latest start S: they are the
      pieces ending after S, the latest event's group is cut at S (its lowest open piece
      starts there) and every other group's lowest open piece starts at or before S.
      So S is the largest of the groups' lowest open starts.
    * The aggregation over the input's distinct starts that a full build runs checks the
      whole input's order (a late row, starting before S and arriving after a row
      starting at or after it, fails the run with the full build's OutOfOrder) and gives
      the starts that emit the pieces; a NULL start, end or arrival fails the run with
      the engine's NullFieldError, as in a full build.
    * New events start at or after S, so the pieces emitted before the partition of S
      (emitted by a start below S) are final, and the run recomputes the rest: every
      row of the partitions from S's on and every open piece, numbered on after the
      rows kept. Per group these are the pieces from c on, where c is the lowest start
      among the group's pieces the run recomputes (a piece boundary, so the events
      overlapping c, clipped to start at c, make the same pieces from c on); a group
      with none recomputes from S (its old events all ended before S). Pieces emitted
      together are ordered by their group's first arrival, from one aggregation of the
      input's (group, arrival) columns.
    * So the run reads the input's events that end after their group's c (open state
      and new events), never the closed history's pieces.

    ``late_rows`` ('error', 'audit' or 'reprocess') and ``this`` (the model's table,
    ``str(dbt.this)``) pick what an event that starts before one that arrived earlier
    (any group) does (:mod:`streamwindows.spark.late_rows`): under 'audit' it goes to
    ``<this>__late_rows`` and stays out of the pieces.

    With ``this``, each build records the input partitions' row counts and checksums in
    ``<this>__input_fingerprints`` (committed by the adapter after dbt's write). A
    scheduled run whose already processed rows changed in place fails with
    ChangedInputError, naming the partition; under 'reprocess' it returns a full
    build's rows instead, which the adapter swaps in as the whole table
    (:mod:`streamwindows.spark.fingerprints`).
    """
    from pyspark.sql import functions as F

    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    if not isinstance(arrival, str) or not arrival:
        raise InvalidParameterError(INCREMENTAL_FUNCTION, "arrival", "a column giving arrival order (it tells "
                                    "new events from processed ones)", arrival, model=model)
    options = dict(start=start, end=end, aggregates=aggregates, group_by=groups or None, arrival=arrival, model=model)
    columns = list(interval_aggregate(empty_frame(df), **options).columns)  # validates before any Spark job
    partition_of = time_partitioner(INCREMENTAL_FUNCTION, df.schema[start].dataType.simpleString()
                                    .startswith("timestamp"), partition, model, "start column")
    policy = late_rows_policy(INCREMENTAL_FUNCTION, late_rows, this, time=start, arrival=arrival, model=model)
    df = policy.input_for(df, full=previous is None)
    fingerprints = InputFingerprints.of(this, time=start, arrival=arrival, partition_of=partition_of)

    def with_partition(frame):
        return frame.withColumn("time_partition", partition_of(F.col("emitted_at")))

    if previous is None:
        fingerprints.check_and_stage(df, full=True, function=INCREMENTAL_FUNCTION, model=model)
        return with_partition(interval_aggregate_spark(df, **options))
    require_time_partition(previous, INCREMENTAL_FUNCTION, model)
    ship_package(df.sparkSession)

    # S: the largest of the groups' lowest open starts (the NULL partition: reading the
    # open pieces prunes every other).
    open_starts = previous.where(F.col("time_partition").isNull()).groupBy(*groups).agg(
        F.min("window_start").alias("_sw_lowest"))
    latest = open_starts.agg(F.max("_sw_lowest")).first()[0]
    if latest is None:  # nothing open: nothing was processed
        fingerprints.check_and_stage(df, full=True, function=INCREMENTAL_FUNCTION, model=model)
        return with_partition(interval_aggregate_spark(df, **options))
    at_latest = F.lit(latest)

    starts = _Starts.of(df, start=start, end=end, arrival=arrival)
    if starts is None or starts.has_null:
        before = _check_late_or_null(df, groups, options, F.col(start) < at_latest)
        if starts is None:  # the rows from S on, all new but those starting at S, among themselves
            check_stream_order(df.where(F.col(start) >= at_latest), start=start, arrival=arrival, group_by=groups,
                               model=model, position_offset=before)
    elif starts.out_of_order:
        check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
        raise AssertionError("the arrival-order check passed on a stream whose starts' arrivals overlap")
    # No late row: a difference below what the table holds is a row changed in place,
    # which fails the run or (under 'reprocess') makes it recompute the whole table.
    if fingerprints.check_and_stage(df, full=False, function=INCREMENTAL_FUNCTION, model=model,
                                    reprocess=policy.late_rows == "reprocess"):
        return with_partition(interval_aggregate_spark(df, **options))

    # The partitions from S's on, and the open pieces (NULL partition), are recomputed.
    recomputed = F.col("time_partition").isNull() | (F.col("time_partition") >= partition_of(at_latest))
    state = previous.agg(F.count(F.when(~recomputed, F.lit(1))).alias("kept"),
                         F.min(F.when(recomputed, F.col("window_start"))).alias("lowest_cut")).first()
    cuts = suffixed(previous.where(recomputed).groupBy(*groups).agg(F.min("window_start").alias("_sw_cut")), groups,
                    "__cut")
    fed = df.join(F.broadcast(cuts), null_safe_match(df, cuts, groups, "__cut"), "left")
    cut = F.coalesce(F.col("_sw_cut"), at_latest)
    fed = fed.where(F.col(end) > cut).withColumn(start, F.greatest(F.col(start), cut)).select(*df.columns)
    group_firsts = df.groupBy(*groups).agg(F.min(arrival).alias(GROUP_FIRST)) if groups else None
    lowest = latest if state["lowest_cut"] is None else min(state["lowest_cut"], latest)
    return with_partition(_emit(fed, {**options, "drain": True, "latency_optimized": False}, groups, columns, starts,
                                whole=df, first_emit_seq=int(state["kept"]), group_firsts=group_firsts,
                                starts_from=lowest))


def _check_late_or_null(df, groups: list[str], options: Mapping[str, Any], before) -> int:
    """One pass over the input's (group, start, end, arrival) columns: a NULL start, end
    or arrival fails the run with the NullFieldError a full build raises (its group is
    replayed on the driver), a row starting before S (``before``) that arrived after one
    starting at or after it with the full build's OutOfOrderError. Returns the number of
    rows before S."""
    from pyspark.sql import functions as F

    start, end, arrival = options["start"], options["end"], options["arrival"]
    unplaceable = F.col(start).isNull() | F.col(end).isNull() | F.col(arrival).isNull()
    per_group = df.groupBy(*groups).agg(
        F.max(F.when(before, F.col(arrival))).alias("_sw_last_before"),
        F.min(F.when(~before, F.col(arrival))).alias("_sw_first_from"),
        F.count(F.when(before, F.lit(1))).alias("_sw_before"),
        F.max(unplaceable.cast("int")).alias("_sw_unplaceable"),
    ).cache()  # two small answers from one pass over the input
    try:
        null_group = per_group.where(F.col("_sw_unplaceable") == 1).limit(1).collect()
        if null_group:  # replay that group on the driver: the engine names the NULL row
            interval_aggregate(group_on_driver(df, null_group[0], groups, [start, end, arrival]), **options)
            raise AssertionError(f"the engine accepts the NULL row in group {dict(null_group[0].asDict())}")
        state = per_group.agg(F.max("_sw_last_before").alias("last_before"),
                              F.min("_sw_first_from").alias("first_from"),
                              F.sum("_sw_before").alias("before")).first()
    finally:
        per_group.unpersist()
    if None not in (state["last_before"], state["first_from"]) and state["last_before"] > state["first_from"]:
        check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=options["model"])  # raises
        raise AssertionError("the arrival-order check passed on a late row")
    return int(state["before"] or 0)
