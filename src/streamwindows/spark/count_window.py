"""StreamInsight count windows on Spark with user-defined aggregates.

Count windows are independent per group, so each group's events go whole to
the pandas engine (:func:`streamwindows.count_window_aggregate`), many groups per call
(spark/per_group.py).
Built-in aggregates are better computed by the ``count_window_aggregate`` SQL macro; this
layer exists for user-defined aggregates (plain Python functions over a window's events,
clipped lifetimes included), which SQL cannot express.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from streamwindows.count_window import count_window_aggregate
from streamwindows.errors import InvalidParameterError
from streamwindows.spark.fingerprints import InputFingerprints, describe_call
from streamwindows.spark.incremental import (
    group_on_driver,
    nothing_written,
    null_safe_match,
    require_time_partition,
    split_at_latest,
    suffixed,
    time_partitioner,
)
from streamwindows.spark.late_rows import late_rows_policy
from streamwindows.spark.numbering import numbered
from streamwindows.spark.per_group import apply_per_group


def count_window_aggregate_spark(
    df,
    *,
    time: str,
    n: int,
    aggregates: Mapping[str, Any] | None = None,
    end: str | None = None,
    group_by: Sequence[str] | str | None = None,
    arrival: str | None = None,
    user_aggregates: Mapping[str, Callable[[pd.DataFrame], Any]] | None = None,
    user_aggregate_types: Mapping[str, str] | None = None,
    model: str | None = None,
):
    """Count windows over a Spark DataFrame: the output of
    :func:`streamwindows.count_window_aggregate` for every group, with the group
    columns, point_at, window_start, window_end, event_count, is_final, emit_seq, the
    built-in aggregates and the user aggregates (``user_aggregate_types`` gives their
    Spark types, default double).

    ``emit_seq`` is the pandas engine's order: by ``point_at``, then by the group's first
    arrival (its least ``arrival``). Without ``arrival`` the engine takes the rows in
    start-time order, and a DataFrame has no row order to break ties with: groups are
    ordered by their first start time, then by their keys."""
    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    windows = _windows(df, time=time, n=n, aggregates=aggregates, end=end, groups=groups, arrival=arrival,
                       user_aggregates=user_aggregates, user_aggregate_types=user_aggregate_types, model=model)
    return _emission_order(_joined_firsts(windows, _firsts(df, groups, time, arrival), groups,
                                          df.schema[arrival or time].dataType), groups, first=0).select(
        *_columns(windows))


def _windows(df, *, time, n, aggregates, end, groups, arrival, user_aggregates, user_aggregate_types, model):
    """Every group's windows, without emit_seq (apply_per_group)."""
    options = dict(time=time, n=n, aggregates=aggregates, end=end, group_by=groups or None, arrival=arrival,
                   user_aggregates=user_aggregates, model=model)
    declared = {name: (user_aggregate_types or {}).get(name, "double") for name in (user_aggregates or {})}
    return apply_per_group(df, count_window_aggregate, options, group_by=groups,
                           time_columns=("point_at", "window_start", "window_end"), time_source=time,
                           order_by=[arrival or time], integer_inputs=[time, end, arrival],
                           declared_types=declared)


def _firsts(df, groups: Sequence[str], time: str, arrival: str | None):
    """Each group's least arrival in ``df`` (or least start time, without ``arrival``):
    the group columns and ``_sw_first``."""
    from pyspark.sql import functions as F

    return df.groupBy(*groups).agg(F.min(arrival or time).alias("_sw_first"))


def _joined_firsts(windows, firsts, groups: Sequence[str], first_type):
    """``windows`` with ``_sw_first``, its group's first arrival in ``firsts``
    (:func:`_firsts`). Without groups there is one window per point: the first arrival
    orders nothing, and ``firsts`` may be None."""
    from pyspark.sql import functions as F

    if not groups:
        return windows.withColumn("_sw_first", F.lit(None).cast(first_type))
    firsts = suffixed(firsts, groups, "__first")
    return windows.join(firsts, null_safe_match(windows, firsts, groups, "__first"), "left").drop(
        *[g + "__first" for g in groups])


def _emission_order(windows, groups: Sequence[str], first: int):
    """``windows`` (with ``_sw_first``) numbered from ``first`` by point_at, the group's
    first arrival, then its keys (a total order: one window per group and point)."""
    from pyspark.sql import functions as F

    return numbered(windows, [F.col("point_at"), F.col("_sw_first"), *[F.col(g) for g in groups]], first=first)


def _columns(windows) -> list[str]:
    """The output's columns in the pandas engine's order: emit_seq after is_final."""
    names = [c for c in windows.columns if c != "_sw_first"]
    at = names.index("is_final") + 1
    return [*names[:at], "emit_seq", *names[at:]]


INCREMENTAL_FUNCTION = "count_window_incremental_spark"


def count_window_incremental_spark(
    df,
    previous,
    *,
    time: str,
    n: int,
    arrival: str,
    aggregates: Mapping[str, Any] | None = None,
    end: str | None = None,
    group_by: Sequence[str] | str | None = None,
    user_aggregates: Mapping[str, Callable[[pd.DataFrame], Any]] | None = None,
    user_aggregate_types: Mapping[str, str] | None = None,
    partition: Any = "day",
    late_rows: str = "error",
    this: str | None = None,
    model: str | None = None,
):
    """What a scheduled run of a count-window model writes: the output of
    :func:`count_window_aggregate_spark` plus ``time_partition``, the day (or the
    month's first day, ``partition='month'``, or the numeric bucket of size
    ``partition``) of ``point_at``, NULL for each group's provisional
    last window (``is_final`` false). For a dbt Python model configured
    ``materialized='incremental', incremental_strategy='insert_overwrite',
    partition_by=['time_partition']``: dynamic partition overwrite replaces exactly
    the partitions this returns rows for, and after any sequence of runs the table
    holds a full build's rows.

    ``df`` is the whole input so far; ``previous`` the model's table (None on a full
    build). The state is the table itself:

    * A group's provisional window (the NULL partition) ends at its latest start time
      P, the last of the N it spans. It becomes final, and new windows follow, once an
      event of the group starts after P; an event starting at P joins it.
    * One aggregation over the input's (group, start, arrival) columns, with P
      broadcast, tells the groups with a start after P, and checks that no event
      starting before P arrived after one starting at or after it: such a late event
      fails the run with OutOfOrder, as it fails a full build. A group the table holds
      no window of (fewer than N start times so far) gets its first window at its Nth
      start time, found among its own events.
    * The run recomputes from X, the start of the partition holding the earliest of
      those windows (a P that becomes final, or a first window): every window whose
      point is at or after X, and every provisional window. Per group these are the
      windows from the lowest start c among the group's windows the table holds there:
      the events starting at or after c make the same windows from c on.
    * So the run reads the events of each group's last N start times and the new
      ones, never the closed history's windows.
    * With ``this``, while the input-file record shows the history as the last build
      saw it (:mod:`streamwindows.spark.input_files`), the checks above read only the
      new rows, the groups' first arrivals come with the fingerprints, and the table's
      state comes from the rewritten partitions: the run's cost follows the new rows and
      the windows' reach, not the history. A new row of a group without a window yet
      (fewer than N start times so far) makes the run read the whole input once.

    ``late_rows`` ('error', 'audit' or 'reprocess') and ``this`` (the model's table,
    ``str(dbt.this)``) pick what an event that arrives out of its group's order does
    (:mod:`streamwindows.spark.late_rows`): under 'audit' it goes to
    ``<this>__late_rows`` and stays out of the windows.

    With ``this``, each build records the input partitions' row counts and checksums in
    ``<this>__input_fingerprints`` (committed by the adapter after dbt's write). A
    scheduled run whose already processed rows changed in place fails with
    ChangedInputError, naming the partition; under 'reprocess' it returns a full
    build's rows instead, which the adapter swaps in as the whole table
    (:mod:`streamwindows.spark.fingerprints`).
    """
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    if not isinstance(arrival, str) or not arrival:
        raise InvalidParameterError(INCREMENTAL_FUNCTION, "arrival", "a column giving arrival order (it tells "
                                    "new events from processed ones)", arrival, model=model)
    options = dict(time=time, n=n, aggregates=aggregates, end=end, group_by=groups or None, arrival=arrival,
                   user_aggregates=user_aggregates, user_aggregate_types=user_aggregate_types, model=model)
    _windows(df, time=time, n=n, aggregates=aggregates, end=end, groups=groups, arrival=arrival,  # validates
             user_aggregates=user_aggregates, user_aggregate_types=user_aggregate_types, model=model)
    partition_of = time_partitioner(INCREMENTAL_FUNCTION, df.schema[time].dataType.simpleString()
                                    .startswith("timestamp"), partition, model)
    policy = late_rows_policy(INCREMENTAL_FUNCTION, late_rows, this, time=time, arrival=arrival, streams=groups,
                              model=model)
    df = policy.input_for(df, full=previous is None)  # without the audited events
    fingerprints = InputFingerprints.of(this, time=time, arrival=arrival, partition_of=partition_of,
                                        call=describe_call(**options, partition=partition),
                                        first_arrivals=groups)

    def with_partition(frame):
        return frame.withColumn("time_partition", F.when(F.col("is_final"), partition_of(F.col("point_at"))))

    if previous is None:
        fingerprints.check_and_stage(df, full=True, function=INCREMENTAL_FUNCTION, model=model)
        return with_partition(count_window_aggregate_spark(df, **options))
    require_time_partition(previous, INCREMENTAL_FUNCTION, model)
    if fingerprints.nothing_new(df):  # the table equals a full build over this input
        return nothing_written(previous)

    # Each group's latest start P: the point of its provisional window (the NULL
    # partition: reading it prunes every other).
    latest = suffixed(previous.where(F.col("time_partition").isNull()).groupBy(*groups)
                      .agg(F.max("point_at").alias("_sw_latest")), groups, "__latest")

    def closes(begins, latest_start):  # the latest start that a later start closes
        return F.when(latest_start.isNotNull() & (begins > latest_start), latest_start)

    # Over a history the input-file record shows unchanged (processed in order, without
    # a NULL), only a new row can be late, and the groups' first arrivals come with the
    # fingerprints: one aggregation over the new rows (Parquet skips the files holding
    # none) answers, unless a new row is late, NULL or of a group without a window yet
    # (its first window needs its history). Else (or to name the late row) the whole
    # input is checked, as a full build checks it.
    history = fingerprints.history(df, full=False) if fingerprints.table is not None else None
    recent = _recent(fingerprints.new_rows(df), latest, groups, time, arrival, end, closes) \
        if history is not None and history.unchanged else None
    if recent is not None:
        fingerprints.check_and_stage(df, full=False, function=INCREMENTAL_FUNCTION, model=model)
        earliest = recent["closing"]
        firsts = fingerprints.group_firsts(df, "_sw_first") if groups else None
    else:
        late, closing, unseen, joined = split_at_latest(  # the least P that a later start closes
            df, latest, groups, time, arrival, closes, required=[end] if end else [])
        if late is not None:
            _raise_out_of_order(df, late, groups, options)
        # No late row: a difference below what the table holds is a row changed in place,
        # which fails the run or (under 'reprocess') makes it recompute the whole table.
        if fingerprints.check_and_stage(df, full=False, function=INCREMENTAL_FUNCTION, model=model,
                                        reprocess=policy.late_rows == "reprocess"):
            return with_partition(count_window_aggregate_spark(df, **options))
        # A group without a window yet gets its first at its Nth distinct start time (a
        # second pass over the input, only when the first found such a group).
        first_window = None
        if unseen:
            starts = joined.where(F.col("_sw_latest").isNull()).select(*groups, "_sw_start").distinct()
            by_group = Window.partitionBy(*groups) if groups else Window.partitionBy()
            ranked = starts.withColumn("_sw_rank", F.row_number().over(by_group.orderBy("_sw_start")))
            first_window = ranked.where(F.col("_sw_rank") == n).agg(F.min("_sw_start").alias("x")).first()["x"]
        earliest = min((x for x in (closing, first_window) if x is not None), default=None)
        firsts = _firsts(df, groups, time, arrival)

    # The partitions from X's on, and the provisional windows (NULL partition).
    recomputed = F.col("time_partition").isNull()
    if earliest is not None:
        recomputed = recomputed | (F.col("time_partition") >= partition_of(F.lit(earliest)))
    cuts = suffixed(previous.where(recomputed).groupBy(*groups).agg(F.min("window_start").alias("_sw_cut")), groups,
                    "__cut")
    fed = df
    if recent is not None:
        # Every group of a new row has a cut (a provisional window), and a group without
        # one has fewer than N start times, so no window: the lowest cut bounds the read
        # (a time filter, and the arrival floor from there, which Parquet applies to the
        # files).
        lowest = cuts.agg(F.min("_sw_cut").alias("x")).first()["x"]
        if lowest is not None:
            fed = df.where((F.col(time) >= F.lit(lowest)) & fingerprints.arrival_floor(df, F.lit(lowest)))
    fed = fed.join(F.broadcast(cuts), null_safe_match(fed, cuts, groups, "__cut"), "left")
    fed = fed.where(F.col("_sw_cut").isNull() | (F.col(time) >= F.col("_sw_cut"))).select(*df.columns)
    windows = _windows(fed, time=time, n=n, aggregates=aggregates, end=end, groups=groups, arrival=arrival,
                       user_aggregates=user_aggregates, user_aggregate_types=user_aggregate_types, model=model)
    windows = _joined_firsts(windows, firsts, groups, df.schema[arrival].dataType)  # the whole input's firsts
    boundary = None if earliest is None else partition_of(F.lit(earliest))
    return with_partition(_numbered_on(windows, previous, groups, boundary, partition_of, model)
                          .select(*_columns(windows)))


def _numbered_on(windows, previous, groups: Sequence[str], boundary, partition_of, model: str | None):
    """The rewritten windows numbered as a full build numbers them. No window starts or
    ends being before ``boundary`` (the partition of the earliest window that becomes
    final or first appears): the windows there keep their places, so the rewritten ones
    there (provisional windows of groups without a later start) keep their emit_seq,
    and the others follow the K windows before ``boundary``, in emission order."""
    from pyspark.sql import functions as F

    if "emit_seq" not in previous.columns:
        raise InvalidParameterError(INCREMENTAL_FUNCTION, "previous", "a table with emit_seq (this version numbers "
                                    "the windows); rebuild it once with --full-refresh",
                                    f"a table with columns {', '.join(previous.columns)}", model=model)
    before = F.lit(True) if boundary is None else partition_of(F.col("point_at")) < boundary
    # The windows from the boundary on are in its partitions or provisional (NULL
    # partition), and so is the last emitted: a final window's point is below its
    # group's provisional one. So the state reads only the rewritten partitions.
    rewritten = F.col("time_partition").isNull()
    if boundary is not None:
        rewritten = rewritten | (F.col("time_partition") >= boundary)
    state = previous.where(rewritten).agg(F.min(F.when(~before, F.col("emit_seq"))).alias("k"),
                                          F.max("emit_seq").alias("last")).first()
    k = state["k"] if state["k"] is not None else (state["last"] + 1 if state["last"] is not None else 0)
    placed = previous.where(F.col("time_partition").isNull() & before).select(
        *[F.col(g).alias(g + "__old") for g in groups], F.col("point_at").alias("_sw_old_point"),
        F.col("emit_seq").alias("_sw_old_seq"))
    kept = windows.where(before)
    kept = kept.join(placed, null_safe_match(kept, placed, groups, "__old")
                     & (kept["point_at"] == placed["_sw_old_point"]), "left")
    kept = kept.withColumn("emit_seq", F.col("_sw_old_seq")).drop(
        *[g + "__old" for g in groups], "_sw_old_point", "_sw_old_seq")
    moved = _emission_order(windows.where(~before), groups, first=int(k))
    return kept.unionByName(moved)


def _recent(new, latest, groups: Sequence[str], time: str, arrival: str, end: str | None, closes) -> dict | None:
    """Over an unchanged history, one aggregation over the ``new`` rows with each group's
    latest start (``latest``, broadcast): None if a new row is late (starts before its
    group's latest start, which arrived before it), has a NULL start, end or arrival, or
    belongs to a group without a window yet; else {"closing": the least latest start
    that a new row closes (``closes``), or None}."""
    from pyspark.sql import functions as F

    joined = new.join(F.broadcast(latest), null_safe_match(new, latest, groups, "__latest"), "left")
    start, latest_start = F.col(time), F.col("_sw_latest")
    trouble = start.isNull() | F.col(arrival).isNull() | latest_start.isNull() | (start < latest_start)
    if end:
        trouble = trouble | F.col(end).isNull()
    answer = joined.agg(F.max(trouble.cast("int")).alias("trouble"),
                        F.min(closes(start, latest_start)).alias("closing")).first()
    return None if answer["trouble"] else {"closing": answer["closing"]}


def _raise_out_of_order(df, late, groups: Sequence[str], options: Mapping[str, Any]) -> None:
    """A group holds an event that starts before its latest processed start time and
    arrived after it, or a NULL time: replay that group on the driver, which raises the
    OutOfOrderError or NullFieldError a full build raises (naming the arrival position,
    the group and the values)."""
    engine_options = {k: v for k, v in options.items() if k != "user_aggregate_types"}
    frame = group_on_driver(df, late, groups, [options["time"], options["end"], options["arrival"]])
    frame = frame.sort_values(options["arrival"], kind="stable", ignore_index=True)
    count_window_aggregate(frame, **engine_options)
    raise AssertionError(f"the arrival-order check found a late or NULL event in group {dict(late.asDict())} "
                         "that the engine accepts")
