"""The interval plan's calls: :func:`interval_aggregate_spark` (a full build) and
:func:`interval_aggregate_incremental_spark` (a scheduled run, which rebuilds only what
new events can change), each validated on the driver before any Spark job."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from streamwindows.errors import InvalidParameterError
from streamwindows.interval_semantics import GROUP_FIRST, interval_aggregate
from streamwindows.spark.fingerprints import InputFingerprints, describe_call
from streamwindows.spark.incremental import (
    any_row,
    group_on_driver,
    nothing_written,
    null_safe_match,
    require_time_partition,
    suffixed,
    time_partitioner,
)
from streamwindows.spark.interval_semantics.emission import emit
from streamwindows.spark.interval_semantics.stream import Starts, check_stream_order, coordinate_of
from streamwindows.spark.late_rows import late_rows_policy
from streamwindows.spark.per_group import empty_frame
from streamwindows.spark.shipping import ship_package

SPARK_FUNCTION = "interval_aggregate_spark"
INCREMENTAL_FUNCTION = "interval_aggregate_incremental_spark"


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
    starts = Starts.of(df, start=start, end=end, arrival=arrival)
    if starts is not None:
        if starts.out_of_order:  # the exact check names the first offending event
            check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
            raise AssertionError("the arrival-order check passed on a stream whose starts' arrivals overlap")
    elif arrival is not None:
        check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
    return emit(df, options, groups, columns, starts, whole=df)


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
    fingerprints = InputFingerprints.of(this, time=start, arrival=arrival, partition_of=partition_of,
                                        call=describe_call(**options, partition=partition), first_arrivals=groups)

    def with_partition(frame):
        return frame.withColumn("time_partition", partition_of(F.col("emitted_at")))

    if previous is None:
        fingerprints.check_and_stage(df, full=True, function=INCREMENTAL_FUNCTION, model=model)
        return with_partition(interval_aggregate_spark(df, **options))
    require_time_partition(previous, INCREMENTAL_FUNCTION, model)
    if fingerprints.nothing_new(df):  # the table equals a full build over this input
        return nothing_written(previous)
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
    spark_type = df.schema[start].dataType.simpleString()

    # Over a history the input-file record shows unchanged (processed in order, without
    # a NULL), only the new rows can be late or unplaceable: one aggregation over them
    # (Parquet skips the files holding none) tells, and the order among the rows from
    # the lowest cut on is checked with their starts, below. Else (or when a new row is
    # late or NULL, to name it) the whole input is checked, as a full build checks it.
    recent = fingerprints.table is not None and fingerprints.history(df, full=False).unchanged and \
        _placeable(fingerprints.new_rows(df), options, at_latest)
    starts = None
    if not recent:
        starts = Starts.of(df, start=start, end=end, arrival=arrival)
        if starts is None or starts.has_null:
            before = _check_late_or_null(df, groups, options, F.col(start) < at_latest)
            if starts is None:  # the rows from S on, all new but those starting at S, among themselves
                check_stream_order(df.where(F.col(start) >= at_latest), start=start, arrival=arrival,
                                   group_by=groups, model=model, position_offset=before)
        elif starts.out_of_order:
            check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
            raise AssertionError("the arrival-order check passed on a stream whose starts' arrivals overlap")
        # No late row: a difference below what the table holds is a row changed in place,
        # which fails the run or (under 'reprocess') makes it recompute the whole table.
        if fingerprints.check_and_stage(df, full=False, function=INCREMENTAL_FUNCTION, model=model,
                                        reprocess=policy.late_rows == "reprocess"):
            return with_partition(interval_aggregate_spark(df, **options))

    # The partitions from S's on, and the open pieces (NULL partition), are recomputed:
    # numbered on from their least emit_seq (the table is numbered 0..n-1 in emission
    # order, the recomputed rows last), each group from its lowest start there (its cut).
    # Both read only those partitions.
    recomputed = F.col("time_partition").isNull() | (F.col("time_partition") >= partition_of(at_latest))
    cuts = suffixed(previous.where(recomputed).groupBy(*groups).agg(
        F.min("window_start").alias("_sw_cut"), F.min("emit_seq").alias("_sw_first_seq")), groups, "__cut")
    state = cuts.agg(F.min("_sw_first_seq").alias("kept"), F.min("_sw_cut").alias("lowest_cut")).first()
    cuts = cuts.drop("_sw_first_seq")
    # The events a group's pieces from its cut on are made of: those ending after the
    # cut. None started before the earliest start the last run's such events had
    # (carried in the record: the cuts only move forward), which bounds the read.
    open_from = fingerprints.history(df, full=False).carried("open_from") if recent else None
    if open_from is None:
        source = df
    else:  # with the arrival floor from there: Parquet skips the history's files
        since = _time_of_coordinate(open_from, spark_type)
        source = df.where((F.col(start) >= since) & fingerprints.arrival_floor(df, since))
    alive = source.join(F.broadcast(cuts), null_safe_match(source, cuts, groups, "__cut"), "left")
    cut = F.coalesce(F.col("_sw_cut"), at_latest)
    alive = alive.where(F.col(end) > cut)
    lowest = latest if state["lowest_cut"] is None else min(state["lowest_cut"], latest)
    if recent:  # the starts the pieces from the cuts on are emitted by, with their order checked
        since = F.lit(lowest)
        starts = Starts.of(df.where((F.col(start) >= since) & fingerprints.arrival_floor(df, since)), start=start,
                           end=end, arrival=arrival)
        if starts is not None and (starts.out_of_order or starts.has_null):
            _check_late_or_null(df, groups, options, F.col(start) < at_latest)
            check_stream_order(df, start=start, arrival=arrival, group_by=groups, model=model)
            raise AssertionError("the arrival-order check passed on a stream whose starts' arrivals overlap")
        # Nothing alive (least skips the NULL min): the next run's events are new ones, from S on.
        carried = {"open_from": alive.agg(F.least(F.min(coordinate_of(F.col(start), spark_type)),
                                                  coordinate_of(at_latest, spark_type))).first()[0]}
        fingerprints.check_and_stage(df, full=False, function=INCREMENTAL_FUNCTION, model=model, carried=carried)
    fed = alive.withColumn(start, F.greatest(F.col(start), cut)).select(*df.columns)
    group_firsts = None
    if groups:  # as staged with the fingerprints, else from the whole input
        group_firsts = fingerprints.group_firsts(df, GROUP_FIRST)
        if group_firsts is None:
            group_firsts = df.groupBy(*groups).agg(F.min(arrival).alias(GROUP_FIRST))
    kept = int(state["kept"]) if state["kept"] is not None else previous.count()
    return with_partition(emit(fed, {**options, "drain": True, "latency_optimized": False}, groups, columns, starts,
                                whole=df, first_emit_seq=kept, group_firsts=group_firsts, starts_from=lowest))


def _placeable(new, options: Mapping[str, Any], at_latest) -> bool:
    """Whether every new row starts at or after S (``at_latest``) with a start, end and
    arrival position: one aggregation over the new rows."""
    from pyspark.sql import functions as F

    start, end, arrival = options["start"], options["end"], options["arrival"]
    trouble = (F.col(start).isNull() | F.col(end).isNull() | F.col(arrival).isNull()
               | (F.col(start) < at_latest))
    return not any_row(new, trouble)


def _time_of_coordinate(value: Any, spark_type: str):
    """A coordinate (:func:`coordinate_of`) back to a literal of the time's type, which
    Spark folds into a filter Parquet applies."""
    from pyspark.sql import functions as F

    if spark_type.startswith("timestamp"):
        return F.timestamp_micros(F.lit(int(value))).cast(spark_type)
    return F.lit(value).cast(spark_type)


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
