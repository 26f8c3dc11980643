"""StreamInsight count windows on Spark with user-defined aggregates.

Count windows are independent per group, so each group's events go to one
``applyInPandas`` call of the pandas engine (:func:`streamwindows.count_window_aggregate`)
and groups run in parallel. Built-in aggregates are better computed by the
``count_window_aggregate`` SQL macro; this layer exists for user-defined aggregates
(plain Python functions over a window's events, clipped lifetimes included), which SQL
cannot express.

Parameters are checked on the driver by running the engine on an empty frame of the
input's schema (no Spark job), so a bad parameter fails before any work starts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pandas as pd

from streamwindows.count_window import count_window_aggregate
from streamwindows.spark.field_dimension import _PANDAS_TYPES, _quote, _spark_type_for

# The engine's emit_seq orders windows across groups; each applyInPandas call sees one
# group, so it is dropped here (order by point_at and the group columns instead).
_PER_GROUP_ONLY = ("emit_seq",)


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
    :func:`streamwindows.count_window_aggregate` for every group, as a DataFrame with the
    group columns, point_at, window_start, window_end, event_count, is_final, the built-in
    aggregates and the user aggregates (``user_aggregate_types`` gives their Spark types,
    default double)."""
    from streamwindows.spark.shipping import ship_package

    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    user_types = dict(user_aggregate_types or {})
    options = dict(time=time, n=n, aggregates=aggregates, end=end, group_by=groups or None, arrival=arrival,
                   user_aggregates=user_aggregates, model=model)
    empty = pd.DataFrame({f.name: pd.Series(dtype=_PANDAS_TYPES.get(f.dataType.simpleString(), "object"))
                          for f in df.schema.fields})
    probe = count_window_aggregate(empty, **options)  # validates; raises before any Spark job
    fields = []
    for column in probe.columns:
        if column in _PER_GROUP_ONLY:
            continue
        if column in (user_aggregates or {}):
            spark_type = user_types.get(column, "double")
        elif column in groups or column in (time,):
            spark_type = df.schema[column].dataType.simpleString()
        elif column in ("point_at", "window_start", "window_end"):
            spark_type = df.schema[time].dataType.simpleString()
        else:
            spark_type = _spark_type_for(probe[column].dtype)
        fields.append(f"{_quote(column)} {spark_type}")
    schema = ", ".join(fields)
    names = [c for c in probe.columns if c not in _PER_GROUP_ONLY]

    def windows(events: pd.DataFrame) -> pd.DataFrame:
        return count_window_aggregate(events, **options)[names]

    ship_package(df.sparkSession)
    grouped = df.groupBy(*groups) if groups else df.groupBy()
    return grouped.applyInPandas(windows, schema=schema)
