"""Shared parts of the Python models' scheduled runs (interval semantics, count windows
with user aggregates, drained field windows): the table is overwritten by partition, and
``time_partition`` is the day or month (timestamp time) or numeric bucket of an output time,
NULL for the rows a later run replaces (open pieces, provisional windows)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from streamwindows.errors import InvalidParameterError


def time_partitioner(function: str, timestamps: bool, partition: Any, model: str | None,
                     column: str = "time column") -> Callable:
    """The Column -> time_partition function, after checking ``partition`` against the
    time's kind: 'day' or 'month' (its first day) for timestamps, a number > 0 (the
    bucket size) for numbers."""
    if timestamps and partition not in ("day", "month"):
        raise InvalidParameterError(function, "partition", f"'day' or 'month' (the {column} is a timestamp)", partition,
                                    model=model)
    if not timestamps and (isinstance(partition, bool) or not isinstance(partition, (int, float)) or partition <= 0):
        raise InvalidParameterError(function, "partition", f"a number > 0 (the {column} is numeric)", partition,
                                    model=model)
    from pyspark.sql import functions as F

    def partition_of(value):
        if timestamps:
            return F.trunc(F.to_date(value), "month") if partition == "month" else F.to_date(value)
        return F.floor(value / F.lit(partition)) * F.lit(partition)

    return partition_of


def require_time_partition(previous, function: str, model: str | None) -> None:
    if "time_partition" not in previous.columns:
        raise InvalidParameterError(function, "previous", "a table this function built (it has time_partition); "
                                    "rebuild it once with --full-refresh",
                                    f"a table with columns {', '.join(previous.columns)}", model=model)


def nothing_written(previous):
    """A scheduled run's rows when nothing is new (the table already equals a full build
    over the input): none, in the table's columns. Built from the schema, not by
    filtering ``previous``: dbt then writes to the table this would read."""
    return previous.sparkSession.createDataFrame([], previous.schema)


def any_row(frame, condition) -> bool:
    """Whether a row of ``frame`` meets ``condition``: one aggregation, not a filter
    (Spark would merge the condition into ``frame``'s own filter, which then may no
    longer reach the files, as a new-rows filter sharing its ``arrival is null``)."""
    from pyspark.sql import functions as F

    return bool(frame.agg(F.max(condition.cast("int")).alias("any")).first()["any"])


def suffixed(frame, groups: Sequence[str], suffix: str):
    """``frame`` with its group columns renamed <group><suffix> (to join back on them)."""
    from pyspark.sql import functions as F

    return frame.select(*[F.col(g).alias(g + suffix) for g in groups], *[c for c in frame.columns if c not in groups])


def null_safe_match(left, right, groups: Sequence[str], suffix: str):
    """left's group keys equal right's (suffixed), NULL equal to NULL: a NULL key is a group."""
    from pyspark.sql import functions as F

    condition = F.lit(True)
    for g in groups:
        condition = condition & left[g].eqNullSafe(right[g + suffix])
    return condition


def group_condition(row, groups: Sequence[str]):
    """The rows of the group ``row`` names (NULL keys included)."""
    from pyspark.sql import functions as F

    condition = F.lit(True)
    for g in groups:
        condition = condition & F.col(g).eqNullSafe(F.lit(row[g]))
    return condition


def group_on_driver(df, row, groups: Sequence[str], integer_columns: Sequence[str | None]):
    """The rows of the group ``row`` names, as pandas, to replay through the engine on
    the driver; ``integer_columns`` stay integer when they hold a NULL (see
    :func:`streamwindows.spark.per_group.restore_integers`)."""
    from streamwindows.spark.per_group import integral_columns, restore_integers

    return restore_integers(df.where(group_condition(row, groups)).toPandas(), integral_columns(df, integer_columns))


def split_at_latest(df, latest, groups: Sequence[str], start: str, arrival: str, new_value: Callable,
                    required: Sequence[str] = ()):
    """One pass over the input's (group, start, arrival) columns, with each group's
    latest processed start broadcast (``latest``: the group columns suffixed
    '__latest' and ``_sw_latest``; a group it lacks has processed nothing). Returns
    (late, earliest, unseen, joined): ``late`` is the group row of a group that fails a
    full build, so fails the run too: it holds a row that starts before its latest
    start and arrived after a row starting at or after it (a late row), or a NULL
    start, arrival or ``required`` column (the run's time filters would drop that row
    unseen); else None. ``earliest`` is the least ``new_value(start, latest)`` over the
    input (None if all are NULL); ``unseen`` how many of the input's groups ``latest``
    lacks (None when ``late``); and ``joined`` the input's columns with ``_sw_latest``,
    for further questions."""
    from pyspark.sql import functions as F

    events = df.select(*groups, F.col(start).alias("_sw_start"), F.col(arrival).alias("_sw_arrival"),
                       *[F.col(c).isNull().alias(f"_sw_null_{i}") for i, c in enumerate(required)])
    joined = events.join(F.broadcast(latest), null_safe_match(events, latest, groups, "__latest"), "left")
    before = F.col("_sw_latest").isNotNull() & (F.col("_sw_start") < F.col("_sw_latest"))
    unplaceable = F.col("_sw_start").isNull() | F.col("_sw_arrival").isNull()
    for i in range(len(required)):
        unplaceable = unplaceable | F.col(f"_sw_null_{i}")
    per_group = joined.groupBy(*groups).agg(
        F.max(F.when(before, F.col("_sw_arrival"))).alias("_sw_last_before"),
        F.min(F.when(~before, F.col("_sw_arrival"))).alias("_sw_first_from"),
        F.min(new_value(F.col("_sw_start"), F.col("_sw_latest"))).alias("_sw_new"),
        F.max(F.col("_sw_latest").isNull().cast("int")).alias("_sw_unseen"),
        F.max(unplaceable.cast("int")).alias("_sw_unplaceable"),
    )
    per_group = per_group.cache()  # two small answers from one pass over the input
    try:
        late = per_group.where((F.col("_sw_last_before") > F.col("_sw_first_from"))
                               | (F.col("_sw_unplaceable") == 1)).limit(1).collect()
        if late:
            return late[0], None, None, joined
        answer = per_group.agg(F.min("_sw_new").alias("x"), F.sum("_sw_unseen").alias("unseen")).first()
        return None, answer["x"], answer["unseen"] or 0, joined
    finally:
        per_group.unpersist()
