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
    :func:`streamwindows.count_window_aggregate` for every group (without emit_seq), with
    the group columns, point_at, window_start, window_end, event_count, is_final, the
    built-in aggregates and the user aggregates (``user_aggregate_types`` gives their
    Spark types, default double)."""
    groups = [group_by] if isinstance(group_by, str) else list(group_by or [])
    options = dict(time=time, n=n, aggregates=aggregates, end=end, group_by=groups or None, arrival=arrival,
                   user_aggregates=user_aggregates, model=model)
    declared = {name: (user_aggregate_types or {}).get(name, "double") for name in (user_aggregates or {})}
    return apply_per_group(df, count_window_aggregate, options, group_by=groups,
                           time_columns=("point_at", "window_start", "window_end"), time_source=time,
                           order_by=[arrival or time],
                           declared_types=declared)
