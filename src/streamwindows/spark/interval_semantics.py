"""Odysseus interval (validity) semantics on Spark.

A piece of a group is emitted by the next event of the same group (docs/semantics.md,
Odysseus section, as :func:`streamwindows.interval_aggregate` decides), so groups are independent: each
group's events go whole to one engine call (many groups per call: spark/per_group.py).
``dump_at_value_count`` counts elements over the whole input and cuts every group at
once, so it is refused here.

Scheduled runs (:func:`interval_aggregate_incremental_spark`, docs/semantics.md, Incremental runs section)
rebuild only what new events can change; see its docstring.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from streamwindows.errors import InvalidParameterError
from streamwindows.interval_semantics import interval_aggregate
from streamwindows.spark.incremental import (
    group_on_driver,
    null_safe_match,
    require_time_partition,
    split_at_latest,
    suffixed,
    time_partitioner,
)
from streamwindows.spark.per_group import apply_per_group

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
    """Interval semantics over a Spark DataFrame: the output of
    :func:`streamwindows.interval_aggregate` for every group (without emit_seq)."""
    if dump_at_value_count is not None:
        raise InvalidParameterError(
            SPARK_FUNCTION, "dump_at_value_count", "None on Spark (it counts elements across all groups, which "
            "the per-group plan cannot see; use the pandas interval_aggregate)", dump_at_value_count, model=model)
    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    options = dict(start=start, end=end, aggregates=aggregates, group_by=groups or None, arrival=arrival,
                   drain=drain, latency_optimized=latency_optimized, model=model)
    return apply_per_group(df, interval_aggregate, options, group_by=groups,
                           time_columns=("window_start", "window_end", "emitted_at"), time_source=start,
                           order_by=[arrival or start], integer_inputs=[start, end, arrival])


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
    model: str | None = None,
):
    """What a scheduled run of an interval-semantics model writes: the output of
    :func:`interval_aggregate_spark` (with drain) plus ``time_partition``, the day (or
    numeric bucket of size ``partition``) of ``emitted_at``, NULL for the pieces still
    open (drained). For a dbt Python model configured
    ``materialized='incremental', incremental_strategy='insert_overwrite',
    partition_by=['time_partition']``: dynamic partition overwrite replaces exactly
    the partitions this returns rows for, and after any sequence of runs the table
    holds a full build's rows.

    ``df`` is the whole input so far; ``previous`` the model's table (None on a full
    build). The state is the table itself:

    * The open pieces (the drain rows) tell each group's latest start L: a piece is
      final once an event of its group starts at or after its end, so the open pieces
      are those from L on, and one starts at L.
    * One aggregation over the input's (group, start, arrival) columns gives each
      group's first start after L (its new events; every start of a group the table
      does not hold), and checks that no row starting before L arrived after one
      starting at or after it: such a late row fails the run with OutOfOrder, as it
      fails a full build.
    * The run recomputes from X, the start of the day holding the earliest new
      start: every piece emitted at or after X (emitted by an event starting there)
      and every open piece. Per group these are the pieces from c on, where c is the
      lowest start among the group's pieces the table holds in those partitions (a
      piece boundary, so the events overlapping c, clipped to start at c, make the
      same pieces from c on).
    * So the run reads the input's events that end after their group's c (open state
      and new events), never the closed history's pieces.
    """
    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    if not isinstance(arrival, str) or not arrival:
        raise InvalidParameterError(INCREMENTAL_FUNCTION, "arrival", "a column giving arrival order (it tells "
                                    "new events from processed ones)", arrival, model=model)
    options = dict(start=start, end=end, aggregates=aggregates, group_by=groups or None, arrival=arrival, model=model)
    full = interval_aggregate_spark(df, **options)  # validates before any Spark job
    from pyspark.sql import functions as F

    partition_of = time_partitioner(INCREMENTAL_FUNCTION, df.schema[start].dataType.simpleString()
                                    .startswith("timestamp"), partition, model, "start column")

    def with_partition(frame):
        return frame.withColumn("time_partition", partition_of(F.col("emitted_at")))

    if previous is None:
        return with_partition(full)

    require_time_partition(previous, INCREMENTAL_FUNCTION, model)

    # Each group's latest start: the lowest start among its open pieces (the NULL
    # partition: reading them prunes every other).
    open_pieces = previous.where(F.col("time_partition").isNull())
    latest = suffixed(open_pieces.groupBy(*groups).agg(F.min("window_start").alias("_sw_latest")), groups, "__latest")
    late, earliest_new, _, _ = split_at_latest(
        df, latest, groups, start, arrival,
        lambda begins, latest_start: F.when(latest_start.isNull() | (begins > latest_start), begins), required=[end])
    if late is not None:
        _raise_out_of_order(df, late, groups, options)

    # The partitions from X's on, and the open pieces (NULL partition).
    recomputed = F.col("time_partition").isNull()
    if earliest_new is not None:
        recomputed = recomputed | (F.col("time_partition") >= partition_of(F.lit(earliest_new)))
    cuts = suffixed(previous.where(recomputed).groupBy(*groups).agg(F.min("window_start").alias("_sw_cut")), groups,
                    "__cut")
    fed = df.join(F.broadcast(cuts), null_safe_match(df, cuts, groups, "__cut"), "left")
    fed = fed.where(F.col("_sw_cut").isNull() | (F.col(end) > F.col("_sw_cut")))
    fed = fed.withColumn(start, F.when(F.col(start) < F.col("_sw_cut"), F.col("_sw_cut")).otherwise(F.col(start)))
    fed = fed.select(*df.columns)
    return with_partition(interval_aggregate_spark(fed, **options))


def _raise_out_of_order(df, late, groups: Sequence[str], options: Mapping[str, Any]) -> None:
    """A group holds a row that starts before its latest processed start and arrived
    after it, or a NULL start or end: replay that group on the driver, which raises the
    OutOfOrderError or NullFieldError a full build raises (naming the arrival position,
    the group and the values)."""
    interval_aggregate(group_on_driver(df, late, groups, [options["start"], options["end"], options["arrival"]]),
                       **options)
    raise AssertionError(f"the arrival-order check found a late or NULL row in group {dict(late.asDict())} "
                         "that the engine accepts")
