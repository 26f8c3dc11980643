"""Grid windows of the field dimension, computed by ranges of the value axis.

For windows on the advance grid that only close (``opening='advance'``, a ``size``, no
``emit_every``) the global part of the semantics collapses:

* A window closes on the first tuple (any group) whose value reaches its end, so its
  ``emitted_at`` is the smallest distinct field value >= ``window_end``: a search in the
  sorted distinct values, which one aggregation gives (it also checks arrival order).
* Ends grow with starts, so the emitting tuple's position never decreases with the
  window start, and a drained window starts after every emitted one. The emission order
  is therefore (window start, group's first arrival), drains included.

So the value axis is cut into contiguous ranges of window starts, one task each, each
task a partition of its own (a key that Spark's hash partitioning sends there, so no
row waits on a sort by task, as groupBy().applyInPandas would make it). A task gets the
rows of every group whose values lie within ``size`` of its range (the rows
before it decide whether a tuple follows a gap, the rows after it fill the windows that
start near its end), runs the engine's vectorized core on them, keeps the windows that
start in its range and numbers them in emission order. ``emit_seq`` is the task's offset
(from the tasks' counts) plus that number.

Tumbling windows, and hopping windows whose size is a whole number of advances, with
aggregates that Spark SQL computes exactly skip the tasks: they are Spark SQL
aggregations (spark/field_dimension/grid_sql.py), numbered by bitmaps of the groups'
ranks per window start.

Against the general path (per-group engine, then an as-of search over the stream and a
global sort of the emissions), this moves each input row through one shuffle and one
Python pass, and sorts nothing globally. Rows within ``size`` of a cut go to both tasks;
with ranges of about a million rows that is a small fraction.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from streamwindows.field_dimension import (
    FieldDimensionParams,
    grouped_search,
    window_candidates,
    window_durations,
)
from streamwindows.spark.columns import SEQ, VALUE, quote
from streamwindows.spark.field_dimension import grid_sql as field_dimension_grid_sql
from streamwindows.spark.session import cached_until_next, session_setting
from streamwindows.spark.shipping import shared_value

ROWS_PER_TASK = 1_000_000
# The sorted distinct values travel to the driver and to every task (both plans).
DISTINCT_VALUES_LIMIT = 2_000_000
_TASK, _NUMBER, _GRANK, _KIND = "__task__", "__number__", "__group_rank__", "__drained__"
_TASK_BITS = 40  # a window's number: task << _TASK_BITS | its place in the task's order
_REPEATED_SEQ = -1  # the number of the one row a task returns when two rows share a seq
GROUP_FIRST = "__group_first__"  # a group's first arrival (seq), in group_firsts


def applies(params: FieldDimensionParams) -> bool:
    """Whether the emission order is (window start, group's first arrival)."""
    return params.opening == "advance" and params.size is not None and params.emit_every is None


def grid_windows_by_value_ranges(df, params: FieldDimensionParams, schema: dict[str, str], *, value, seq_column,
                                 coordinate_type: str, n_parts: int, check_arrival_order, public_output,
                                 aggregate_types: dict[str, str], empty, group_firsts=None, starts_after=None,
                                 first_emit_seq: int = 0):
    """The field dimension's output for a grid configuration, or None when the field
    has more than DISTINCT_VALUES_LIMIT distinct values (the general path runs then).

    ``value`` is the field as coordinates (a Column), ``check_arrival_order(stream)``
    the exact arrival-order check (it raises the documented errors; it only runs when
    the cheap check below finds a problem), ``public_output(frame)`` shapes the
    numbered windows into the documented columns and ``empty()`` is the output of an
    empty input.

    Incremental runs pass ``df`` = the rows a run reads, ``group_firsts`` (every
    group's first arrival over the whole input, as group columns and GROUP_FIRST),
    ``starts_after`` (only windows starting after it, a coordinate) and
    ``first_emit_seq`` (the number of windows emitted before).
    """
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType


    spark = df.sparkSession
    group_cols = list(params.group_by)
    inputs = list(dict.fromkeys(c for a in params.aggregates for c in a.columns))
    input_alias = {c: f"__input_{i}__" for i, c in enumerate(inputs)}
    stream = df.select(F.col(quote(seq_column)).alias(SEQ), value.alias(VALUE),
                       *[F.col(quote(g)) for g in group_cols],
                       *[F.col(quote(c)).alias(a) for c, a in input_alias.items()])

    # 1. Distinct values (arrival order, the emitting values) and each group's first
    #    arrival (the order of windows that start together): two aggregations, one job.
    stats, firsts = _values_and_group_firsts(stream, group_cols, group_firsts)
    if stats is None:
        return None
    values_column = stats[VALUE].to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.isfinite(values_column).all() or (stats["rows"] != stats["seqs"]).any():
        check_arrival_order(stream)  # a NULL field value or seq: raises, naming the row
        raise AssertionError("the arrival-order check passed on a NULL value")
    stats = stats.sort_values(VALUE, ignore_index=True)
    first_seq = stats["first_seq"].to_numpy(np.int64)
    last_seq = stats["last_seq"].to_numpy(np.int64)
    # Ordered iff each value's arrivals all come before the next value's (ties within
    # one value are checked by the tasks).
    if (last_seq[:-1] >= first_seq[1:]).any():
        check_arrival_order(stream)
        raise AssertionError("the arrival-order check passed on a decreasing stream")
    n = int(stats["rows"].sum())
    if n == 0:
        return empty()
    values = stats[VALUE].to_numpy(dtype=params.coordinate_dtype)

    # 2. Groups, ranked by first arrival.
    if group_cols:
        if not isinstance(firsts, list):
            firsts = firsts.collect()
        ranked = sorted(firsts, key=lambda r: r[GROUP_FIRST])
        group_schema = StructType([*[stream.schema[g] for g in group_cols],
                                   StructField(_GRANK, LongType(), nullable=False)])
        groups = spark.createDataFrame([(*[r[g] for g in group_cols], i) for i, r in enumerate(ranked)],
                                       group_schema)
        key = [f"__group_{i}__" for i in range(len(group_cols))]
        keyed = groups.select(*[F.col(quote(g)).alias(k) for g, k in zip(group_cols, key, strict=True)], _GRANK)
        condition = [stream[quote(g)].eqNullSafe(keyed[k]) for g, k in zip(group_cols, key, strict=True)]
        ranked_stream = stream.join(F.broadcast(keyed), condition).drop(*key, *group_cols)
        n_groups = len(ranked)
    else:
        groups, n_groups = None, 1
        ranked_stream = stream.withColumn(_GRANK, F.lit(0).cast("bigint"))

    if field_dimension_grid_sql.applies(params, schema, incremental=starts_after is not None):
        # Tumbling and whole-pane hopping windows: Spark SQL aggregations
        # (spark/field_dimension/grid_sql.py). They have no task to meet a repeated seq
        # within one value; seqs that are contiguous there are unique.
        if (last_seq - first_seq + 1 != stats["rows"].to_numpy(np.int64)).any() and not (
                stream.groupBy(SEQ).count().where(F.col("count") > 1).isEmpty()):
            check_arrival_order(stream)
            raise AssertionError("the arrival-order check passed on a repeated seq")
        windows = field_dimension_grid_sql.grid_windows(
            ranked_stream, params, values=values, n_groups=n_groups, seq=SEQ, value=VALUE, group_rank=_GRANK,
            input_alias=input_alias, aggregate_types=aggregate_types, coordinate_type=coordinate_type,
            starts_after=starts_after, first_emit_seq=first_emit_seq)
        if windows is not None:
            return public_output(windows if groups is None else windows.join(F.broadcast(groups), _GRANK))

    # 3. Ranges of window starts, about ROWS_PER_TASK rows each; a row goes to every
    #    task whose starts lie within `size` of its value.
    tasks = max(n_parts, -(-n // ROWS_PER_TASK))
    cumulative = np.cumsum(stats["rows"].to_numpy())
    picks = np.searchsorted(cumulative, np.arange(1, tasks) * n / tasks, side="right")
    cuts = np.unique(values[np.minimum(picks, len(values) - 1)])
    cuts = cuts[cuts > values[0]]
    tasks = len(cuts) + 1
    low = [None, *cuts.tolist()]  # task t owns starts in [low[t], high[t])
    high = [*cuts.tolist(), None]
    margin = params.size if params.exact else 2 * params.size  # float rounding near a cut

    def task_of(x):
        def pick(first: int, last: int):  # tasks first..last, a balanced comparison tree
            if first == last:
                return F.lit(first)
            middle = (first + last + 1) // 2
            cut = F.lit(cuts[middle - 1].item()).cast(coordinate_type)
            return F.when(x < cut, pick(first, middle - 1)).otherwise(pick(middle, last))
        return pick(0, tasks - 1)

    routed = ranked_stream.withColumn(_TASK, F.explode(F.sequence(
        task_of(F.col(VALUE) - F.lit(margin)), task_of(F.col(VALUE) + F.lit(margin)))))

    # 4. Each task: the engine's core on its rows, the windows starting in its range.
    table = shared_value(spark, values)
    # As few columns as possible: every value crosses Arrow and the cache. COUNT(*) is
    # the window's row_count, so it is copied from that column after the tasks.
    row_counts = [a.name for a in params.aggregates if a.function.name == "count" and not a.columns]
    aggregate_names = [a.name for a in params.aggregates if a.name not in row_counts]
    out_fields = [f"{_NUMBER} bigint", f"{_GRANK} bigint", f"window_start {coordinate_type}",
                  *([f"{_KIND} boolean"] if params.drain else []), f"emitted_at {coordinate_type}", "row_count bigint",
                  *[f"{quote(name)} {aggregate_types[name]}" for name in aggregate_names]]
    out_names = [f.split()[0].strip("`").replace("``", "`") for f in out_fields]

    def run_tasks(batches):  # no type hints: mapInPandas would try to infer its kind from them
        rows = [batch for batch in batches if len(batch)]
        if not rows:
            return
        rows = pd.concat(rows, ignore_index=True)
        numbers = rows[_TASK].to_numpy()
        tasks_here = np.unique(numbers)  # one, unless two tasks' keys share a partition
        for number in tasks_here:
            mine = rows if len(tasks_here) == 1 else rows[numbers == number].reset_index(drop=True)
            number = int(number)
            yield _task_windows(mine, number, low[number], high[number], starts_after, table.value, n_groups,
                                params, input_alias, out_names)

    # A partition per task, by a key that Spark's hash partitioning sends to it: the
    # tasks need no sort by task (groupBy().applyInPandas sorts every row first).
    keys = F.array(*[F.lit(k) for k in _partition_keys(tasks)])
    windows = (routed.repartition(tasks, F.element_at(keys, F.col(_TASK) + 1))
               .mapInPandas(run_tasks, ", ".join(out_fields))
               .withColumn(_TASK, F.shiftright(F.col(_NUMBER), _TASK_BITS)))
    # Cached uncompressed (Spark takes the setting when the cache is declared and
    # built, here): its columnar compression tries every encoding on every column of
    # every batch, which cost the hopping bench (13.6M windows) 4 s of CPU, a fifth of
    # the tasks' stage. The setting decides how the cache is stored, never what it
    # holds, and is put back at once. The returned DataFrame reads the cache until dbt
    # writes it (session.cached_until_next).
    with session_setting(spark, "spark.sql.inMemoryColumnarStorage.compressed", "false"):
        windows = cached_until_next(windows, StorageLevel.MEMORY_AND_DISK_DESER)
        counts = windows.groupBy(_TASK).count().collect()
    if any(r[_TASK] == _REPEATED_SEQ >> _TASK_BITS for r in counts):  # a task met a repeated seq
        windows.unpersist()
        check_arrival_order(stream)
        raise AssertionError("the arrival-order check passed on a repeated seq")
    count_of = {r[_TASK]: r["count"] for r in counts}
    offsets = first_emit_seq + np.concatenate([[0], np.cumsum([count_of.get(t, 0) for t in range(tasks)])])[:-1]

    # 5. Number the windows, put the group columns back, shape the output.
    offset_map = F.create_map(*[x for t in range(tasks) for x in (F.lit(t), F.lit(int(offsets[t])))])
    numbered = windows.withColumns({
        **{name: F.col("row_count").cast(aggregate_types[name]) for name in row_counts},
        "emit_seq": F.element_at(offset_map, F.col(_TASK)) + F.col(_NUMBER).bitwiseAND((1 << _TASK_BITS) - 1),
        "window_end": F.col("window_start") + F.lit(params.size).cast(coordinate_type),
        "emit_kind": F.when(F.col(_KIND), F.lit("drain")).otherwise(F.lit("close")) if params.drain
        else F.lit("close"),
    })
    if groups is not None:
        numbered = numbered.join(F.broadcast(groups), _GRANK)
    return public_output(numbered)


def _values_and_group_firsts(stream, group_cols: list[str], group_firsts):
    """(statistics of the distinct field values as a pandas DataFrame, or None past
    DISTINCT_VALUES_LIMIT; each group's first arrival) from one Spark job.

    The first arrivals are ``group_firsts`` when given (a DataFrame), [] without groups,
    else dicts of the group columns and GROUP_FIRST, computed in the same job as the
    statistics. Arrow carries both results, so the group values keep their exact types.
    """
    from pyspark.sql import functions as F


    part = "__part__"
    statistics = {"first_seq": F.min(SEQ), "last_seq": F.max(SEQ), "rows": F.count(F.lit(1)),
                  "seqs": F.count(SEQ)}
    internal = {name: f"__{name}__" for name in statistics}  # apart from the group columns' names
    result = (stream.groupBy(VALUE).agg(*[f.alias(internal[name]) for name, f in statistics.items()])
              .limit(DISTINCT_VALUES_LIMIT + 1).withColumn(part, F.lit(0)))
    computed = bool(group_cols) and group_firsts is None
    if computed:
        result = result.unionByName(
            stream.groupBy(*[F.col(quote(g)) for g in group_cols]).agg(F.min(SEQ).alias(GROUP_FIRST))
            .withColumn(part, F.lit(1)), allowMissingColumns=True)
    table = result.toArrow()
    kinds = table.column(part).to_numpy()
    stats = (table.filter(kinds == 0).select([VALUE, *internal.values()]).to_pandas()
             .rename(columns={v: k for k, v in internal.items()}))
    if len(stats) > DISTINCT_VALUES_LIMIT:
        return None, None
    if not computed:
        return stats, group_firsts if group_cols else []
    return stats, table.filter(kinds == 1).select([*group_cols, GROUP_FIRST]).to_pylist()


def _partition_keys(partitions: int) -> list[int]:
    """For each partition p, an int key that Spark's hash partitioning into
    ``partitions`` sends to p: pmod(murmur3(key, seed 42), partitions) == p."""
    keys: dict[int, int] = {}
    candidate = 0
    while len(keys) < partitions:
        keys.setdefault(_spark_int_hash(candidate) % partitions, candidate)
        candidate += 1
    return [keys[p] for p in range(partitions)]


def _spark_int_hash(value: int, seed: int = 42) -> int:
    """Spark's hash() of an int (Murmur3_x86_32.hashInt), as a signed 32-bit int."""
    def rotate(x: int, r: int) -> int:
        return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF

    k1 = rotate((value & 0xFFFFFFFF) * 0xCC9E2D51 & 0xFFFFFFFF, 15) * 0x1B873593 & 0xFFFFFFFF
    h1 = (rotate(seed ^ k1, 13) * 5 + 0xE6546B64) & 0xFFFFFFFF
    h1 ^= 4  # the input's length in bytes
    h1 = (h1 ^ (h1 >> 16)) * 0x85EBCA6B & 0xFFFFFFFF
    h1 = (h1 ^ (h1 >> 13)) * 0xC2B2AE35 & 0xFFFFFFFF
    h1 ^= h1 >> 16
    return h1 - (1 << 32) if h1 >= 1 << 31 else h1


def _masked(values: np.ndarray, valid: np.ndarray, dtype: str):
    if valid.all():  # a plain array crosses Arrow faster than a masked one
        return values
    array = pd.array(values, dtype=dtype)
    array[~valid] = pd.NA
    return array


def _task_windows(rows: pd.DataFrame, number: int, low: Any, high: Any, after: Any, values: np.ndarray, n_groups: int,
                  params: FieldDimensionParams, input_alias: dict[str, str], out_names: list[str]) -> pd.DataFrame:
    """The windows starting in [low, high) and after ``after`` (None: unbounded), numbered in emission
    order; or one row numbered _REPEATED_SEQ when two rows share a seq."""

    seq = rows[SEQ].to_numpy(np.int64)
    arrival = np.argsort(seq, kind="stable")
    if (seq[arrival][1:] == seq[arrival][:-1]).any():
        flag = {name: pd.Series([None], dtype=object) for name in out_names}
        flag[_NUMBER] = [_REPEATED_SEQ]
        return pd.DataFrame(flag)
    v = rows[VALUE].to_numpy(params.coordinate_dtype)
    rank = rows[_GRANK].to_numpy(np.int64)
    # Group after group, each in arrival order: a stable sort of the arrival order by
    # group rank (a linear radix sort when the ranks fit 16 bits).
    by_rank = rank[arrival]
    small = n_groups <= np.iinfo(np.uint16).max + 1
    grouped = arrival[np.argsort(by_rank.astype(np.uint16) if small else by_rank, kind="stable")]
    arrival_index = np.empty(len(seq), dtype=np.int64)
    arrival_index[arrival] = np.arange(len(seq))
    present = np.zeros(n_groups, dtype=bool)
    present[rank] = True
    group_ranks = np.flatnonzero(present)  # the task's groups; gid numbers them densely
    gid = (np.cumsum(present) - 1)[rank[grouped]]
    group_starts = np.searchsorted(gid, np.arange(len(group_ranks) + 1))
    u = v[grouped]
    search = grouped_search(u, gid, arrival_index[grouped], v[arrival], len(group_ranks))
    raw = window_candidates(u, group_starts, params, search, None)

    start = raw["window_start"]
    mine = np.ones(len(start), dtype=bool)
    if low is not None:
        mine &= start >= low
    if high is not None:
        mine &= start < high
    if after is not None:
        mine &= start > after
    keep = np.flatnonzero(mine)
    emitter = np.searchsorted(values, raw["window_end"][keep], side="left")
    reached = emitter < len(values)
    if not params.drain:
        keep, emitter, reached = keep[reached], emitter[reached], reached[reached]
    window_rank = group_ranks[raw["gid"][keep]]
    order = np.lexsort((window_rank, start[keep]))
    keep, emitter, reached = keep[order], emitter[order], reached[order]
    lo, hi = raw["lo"][keep], raw["hi"][keep]

    emitted_at = (values[np.minimum(emitter, len(values) - 1)] if len(values)
                  else np.zeros(len(keep), dtype=params.coordinate_dtype))
    nullable = "Int64" if params.exact else "Float64"
    data = {
        _NUMBER: (number << _TASK_BITS) + np.arange(len(keep), dtype=np.int64),
        _GRANK: window_rank[order],
        "window_start": start[keep],
        **({_KIND: ~reached} if params.drain else {}),
        "emitted_at": _masked(emitted_at, reached, nullable),
        "row_count": (hi - lo).astype(np.int64),
    }
    inputs = {c: rows[alias].array.take(grouped) for c, alias in input_alias.items()}
    durations = None
    if any(a.needs_durations for a in params.aggregates):
        durations = window_durations({"window_start": start[keep], "window_end": raw["window_end"][keep]}, params)
    for aggregate in params.aggregates:
        if aggregate.name in out_names:
            data[aggregate.name] = aggregate.compute(inputs, lo, hi, durations=durations)
    return pd.DataFrame(data, columns=out_names, copy=False)

