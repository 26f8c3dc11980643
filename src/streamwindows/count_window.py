"""StreamInsight count windows (``CountByStartTimeWindow(N)``), replayed in batch.

The contract is docs/semantics.md, StreamInsight section. Per group, let ``t1 < t2 < ... < tD`` be the
distinct event start times. Window k (k = 1..D-N+1) spans ``[t_k, t_{k+N-1} + 1 tick)``
and holds every event whose start lies in ``[t_k, t_{k+N-1}]`` (more than N events when
start times repeat); with D < N there is no window. The output policy is
PointAlignToWindowEnd: one point row per window at ``t_{k+N-1}``. The input policy is
ClipToWindow: a time-sensitive (user-defined) aggregate sees each event's lifetime
clipped to the window span. The last window of each group is provisional: an event that
arrives later with the same start time would still join it.

How it is computed
------------------
Events arrive in start order per group, so each group's events, in arrival order, form
runs of equal start times ("blocks"), and window k is blocks k..k+N-1: a contiguous
range ``[lo, hi)`` of the group's rows. All groups are laid out one after the other and
every window of every group comes from one vectorized pass over the block starts; the
built-in aggregates are range kernels (:mod:`streamwindows.range_aggregates`). Only the
user-defined aggregates run Python per window (they are Python functions).

Decisions where the contract is silent
--------------------------------------
* The tick is 1 microsecond for timestamps (as in Spark) and 1 for integer times; a
  float time has no tick and is rejected. Timestamps come back as ``datetime64[ns]``
  (time zone kept).
* Arrival order: the ``arrival`` column when given (stable), otherwise the start time's
  order with the frame's row order as tie-break (the common rules of docs/semantics.md), in which
  case the input cannot be out of order. With ``arrival``, a start below the previous
  start of its group raises :class:`OutOfOrderError`; equal starts are allowed.
* ``end`` makes the events interval events ``[start, end)``; ``end`` must be after
  ``start`` (else :class:`InvalidIntervalError`). Without it, events are points with
  lifetime ``[start, start + 1 tick)``. Window membership depends on start times only:
  an interval event that is still alive in a later window but started before it does
  not belong to it.
* Built-in aggregates see the events' values (clipping changes no value); RATE divides
  by the window's duration ``window_end - window_start`` (events per second for
  timestamps, per time unit for integers).
* Output order (``emit_seq``): by the point timestamp, then by the group's first
  arrival, as StreamInsight releases output in application-time order.
* User-defined aggregates are called as ``function(events)`` once per window, in
  ``emit_seq`` order; ``events`` holds the window's events in arrival order with all
  input columns, indexed by arrival position, plus ``clipped_start`` and ``clipped_end``
  (the lifetime clipped to the window, in the time column's type);
  ``events.attrs`` holds ``window_start`` and ``window_end``. Their output column's type
  is what pandas infers from the returned values.
* NULL group keys form a group of their own; a NULL start, end or arrival value raises
  :class:`NullFieldError`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.checks import ParameterChecks
from streamwindows.event_input import (
    check_columns,
    from_coordinates,
    prepare_events,
    take_column,
    time_kind,
    validate_outputs,
)
from streamwindows.range_aggregates import gather_ranges, parse_aggregates

__all__ = ["COUNT_WINDOW_COLUMNS", "count_window_aggregate", "time_weighted_average"]

FUNCTION = "count_window_aggregate"
COUNT_WINDOW_COLUMNS = ("point_at", "window_start", "window_end", "event_count", "is_final", "emit_seq")
CLIPPED_COLUMNS = ("clipped_start", "clipped_end")
_TICK_NS = 1000  # 1 microsecond in timestamp coordinates (ns)


def _tick(kind: str) -> int:
    return _TICK_NS if kind == "timestamp" else 1


def count_window_aggregate(
    frame: pd.DataFrame,
    *,
    time: str,
    n: int,
    aggregates: Mapping[str, Any] | None = None,
    end: str | None = None,
    group_by: Sequence[str] | str | None = None,
    arrival: str | None = None,
    user_aggregates: Mapping[str, Callable[[pd.DataFrame], Any]] | None = None,
    model: str | None = None,
) -> pd.DataFrame:
    """What StreamInsight's ``CountByStartTimeWindow(n)`` emits on ``frame``.

    Parameters
    ----------
    frame: the events, one row each.
    time: the event start time column (integer or timestamp).
    n: the number of distinct start times per window (an int >= 1).
    aggregates: built-in aggregates ``{output_name: "sum(volume)" | ("nth", "x", 2)}``
        (see :mod:`streamwindows.range_aggregates`), computed over each window's events.
    end: the event end time column (same kind as ``time``) for interval events; None for
        point events.
    group_by: columns; each group has its own windows.
    arrival: an arrival-order column (e.g. the seed's ``seq``); default: start time order.
    user_aggregates: ``{output_name: function(events) -> value}``, each called once per
        window with the window's events and their clipped lifetimes (module docstring;
        :func:`time_weighted_average` is an example).
    model: the model's name, for error messages.

    Returns the group columns, ``point_at`` (the output point: the window's last start
    time ``t_{k+N-1}``), ``window_start`` (``t_k``), ``window_end`` (``t_{k+N-1}`` plus one
    tick), ``event_count``, ``is_final`` (False on each group's last window),
    ``emit_seq`` (0-based output order), then the aggregates and the user aggregates,
    sorted by ``emit_seq``. Raises :class:`InvalidParameterError` (before reading any
    data), :class:`NullFieldError`, :class:`OutOfOrderError` and
    :class:`InvalidIntervalError`.
    """
    group_by, kind, parsed, users = _validate(
        frame, time=time, n=n, aggregates=aggregates, end=end, group_by=group_by,
        arrival=arrival, user_aggregates=user_aggregates, model=model,
    )
    inputs = list(dict.fromkeys(c for a in parsed for c in a.columns))
    if users:
        needed = list(frame.columns)
    else:
        needed = list(dict.fromkeys([time, *([end] if end else []), *group_by, *inputs,
                                     *([arrival] if arrival else [])]))
    layout = prepare_events(
        frame[needed], start=time, end=end, group_by=group_by, arrival=arrival, kind=kind, model=model
    )
    u, gid, starts = layout.start, layout.gid, layout.group_starts
    rows_n = len(u)
    tick = _tick(kind)

    # Blocks: runs of equal start times within a group (layout order).
    new_block = np.ones(rows_n, dtype=bool)
    new_block[1:] = (gid[1:] != gid[:-1]) | (u[1:] != u[:-1])
    block_lo = np.flatnonzero(new_block)
    block_bounds = np.append(block_lo, rows_n)
    block_gid = gid[block_lo]
    group_block_end = np.searchsorted(block_gid, np.arange(layout.n_groups), side="right")
    # Window k of a group = its blocks k .. k+n-1; the first block must leave n-1 after it.
    first = np.flatnonzero(np.arange(len(block_lo)) + n <= group_block_end[block_gid])
    lo = block_lo[first]
    hi = block_bounds[first + n]
    window_gid = block_gid[first]
    window_start = u[lo]
    point = u[block_lo[first + n - 1]]
    window_end = point + tick
    is_final = first + n < group_block_end[window_gid]

    group_first_position = layout.rows[starts[:-1]]
    order = np.lexsort((group_first_position[window_gid], point))
    lo, hi, window_gid = lo[order], hi[order], window_gid[order]
    window_start, point, window_end, is_final = (
        window_start[order], point[order], window_end[order], is_final[order]
    )

    time_dtype = frame[time].dtype
    data: dict[str, Any] = {c: layout.group_values[c][window_gid] for c in group_by}
    data["point_at"] = from_coordinates(point, kind, time_dtype)
    data["window_start"] = from_coordinates(window_start, kind, time_dtype)
    data["window_end"] = from_coordinates(window_end, kind, time_dtype)
    data["event_count"] = (hi - lo).astype(np.int64)
    data["is_final"] = is_final
    data["emit_seq"] = np.arange(len(lo), dtype=np.int64)

    if parsed:
        layout_inputs = {c: take_column(layout.arrival_frame[c], layout.rows) for c in inputs}
        durations = (window_end - window_start).astype(np.float64)
        if kind == "timestamp":
            durations = durations / 1e9
        for aggregate in parsed:
            data[aggregate.name] = aggregate.compute(layout_inputs, lo, hi, durations=durations)
    if users:
        results = _user_aggregates(users, layout, lo, hi, window_start, window_end, time, end, time_dtype)
        data.update(results)
    columns = [*group_by, *COUNT_WINDOW_COLUMNS, *(a.name for a in parsed), *users]
    return pd.DataFrame(data, columns=columns)


def _validate(
    frame: Any, *, time: Any, n: Any, aggregates: Any, end: Any, group_by: Any, arrival: Any,
    user_aggregates: Any, model: Any,
) -> tuple[tuple[str, ...], str, list, dict[str, Any]]:
    reserved = (*COUNT_WINDOW_COLUMNS, *CLIPPED_COLUMNS)
    group_by = check_columns(
        frame, function=FUNCTION, model=model, group_by=group_by, arrival=arrival, reserved=reserved
    )

    checks = ParameterChecks(FUNCTION, model, frame.columns)
    fail = checks.fail
    checks.column("time", time)
    kind = time_kind(frame[time].dtype)
    if kind not in ("int", "timestamp"):
        raise fail(
            "time", "an integer or timestamp column (a count window ends one tick after its last "
            "start time, and only those types have a tick)", time, f" (dtype {frame[time].dtype})",
        )
    checks.count("n", n, "an integer >= 1 (the number of distinct start times per window)")
    checks.column("end", end, optional=True)
    if end is not None:
        if end == time or time_kind(frame[end].dtype) != kind:
            raise fail("end", f"a column other than `time` of the same kind ({kind})", end,
                       f" (dtype {frame[end].dtype})")
    if aggregates is None:
        aggregates = {}
    parsed = parse_aggregates(aggregates, dict(frame.dtypes), FUNCTION, model=model, context=("durations",))
    users = validate_outputs(
        user_aggregates, [a.name for a in parsed], function=FUNCTION, model=model,
        group_by=group_by, reserved=reserved,
    )
    return group_by, kind, parsed, users


def _user_aggregates(
    users: Mapping[str, Callable[[pd.DataFrame], Any]],
    layout: Any,
    lo: np.ndarray,
    hi: np.ndarray,
    window_start: np.ndarray,
    window_end: np.ndarray,
    time: str,
    end: str | None,
    time_dtype: Any,
) -> dict[str, Any]:
    results: dict[str, list[Any]] = {name: [] for name in users}
    kind = layout.kind
    tick = _tick(kind)
    for ranges, offsets, lengths, gathered in gather_ranges(lo, hi):
        rows = layout.rows[gathered]
        events = layout.arrival_frame.take(rows)
        events.index = pd.RangeIndex(len(events)) if not len(rows) else pd.Index(rows, name="arrival_position")
        owner = np.repeat(np.arange(len(lengths)), lengths)
        w_end = window_end[ranges][owner]
        clipped_start = layout.start[gathered]  # starts lie inside the window
        lifetime_end = layout.end[gathered] if end is not None else clipped_start + tick
        events["clipped_start"] = from_coordinates(clipped_start, kind, time_dtype)
        events["clipped_end"] = from_coordinates(np.minimum(lifetime_end, w_end), kind, time_dtype)
        starts_of = from_coordinates(window_start[ranges], kind, time_dtype)
        ends_of = from_coordinates(window_end[ranges], kind, time_dtype)
        for i, (offset, length) in enumerate(zip(offsets.tolist(), lengths.tolist(), strict=True)):
            window_events = events.iloc[offset : offset + length]
            window_events.attrs = {"window_start": starts_of[i], "window_end": ends_of[i]}
            for name, function in users.items():
                results[name].append(function(window_events))
    return {name: pd.Series(values, dtype=None if values else object).array for name, values in results.items()}


def time_weighted_average(column: str) -> Callable[[pd.DataFrame], float | None]:
    """A user-defined aggregate: the mean of ``column`` weighted by each event's lifetime
    clipped to the window (``clipped_end - clipped_start``).

    NULL values are left out with their weight; NULL when no weight remains. Use it as
    ``user_aggregates={"twa_price": time_weighted_average("price")}``.
    """

    def aggregate(events: pd.DataFrame) -> float | None:
        values = pd.to_numeric(events[column]).to_numpy(dtype=np.float64, na_value=np.nan)
        weights = _lifetime_lengths(events["clipped_start"], events["clipped_end"])
        present = ~np.isnan(values)
        total = weights[present].sum()
        if total <= 0:
            return None
        return float(np.dot(values[present], weights[present]) / total)

    aggregate.__name__ = f"time_weighted_average_{column}"
    aggregate.__doc__ = f"Time-weighted average of {column!r} over the clipped lifetimes."
    return aggregate


def _lifetime_lengths(start: pd.Series, end: pd.Series) -> np.ndarray:
    if pd.api.types.is_datetime64_any_dtype(start.dtype):
        return (end - start).dt.total_seconds().to_numpy(dtype=np.float64)
    return (end - start).to_numpy(dtype=np.float64)
