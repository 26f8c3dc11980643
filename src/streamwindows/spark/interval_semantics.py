"""Odysseus interval (validity) semantics on Spark.

A piece of a group is emitted by the next event of the same group (SEMANTICS.md section
5, as :func:`streamwindows.interval_aggregate` decides), so groups are independent: each
group's events go whole to one engine call (many groups per call: spark/per_group.py).
``dump_at_value_count`` counts elements over the whole input and cuts every group at
once, so it is refused here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from streamwindows.errors import InvalidParameterError
from streamwindows.interval_semantics import interval_aggregate
from streamwindows.spark.per_group import apply_per_group

SPARK_FUNCTION = "interval_aggregate_spark"


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
                           order_by=[arrival or start])
