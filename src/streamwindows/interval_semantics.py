"""Odysseus AGGREGATE under interval semantics, replayed in batch.

The contract is docs/semantics.md, Odysseus section, "Interval semantics". Every event is valid
over ``[start, end)``; the input is one stream, ordered by start across all groups: an
event starting before the previous event (in arrival order, any group) is OutOfOrder,
and the error names both events' groups. Odysseus keeps, per group, one partial
aggregate per *piece*: the elementary intervals between consecutive distinct boundaries
(every start and end of the group's events) over which at least one event is valid. The
output is one row per piece with the aggregate over the events valid there (the
document's count example: ``[t1,t2)`` 1, ``[t2,t3)`` 3, ``[t3,t4)`` 1). Neighbouring
pieces with equal values are not merged.

When a row is emitted
---------------------
* Time is global. A piece ``[a, b)`` of group g is final once an event of **any** group
  with ``start >= b`` arrives: the stream is ordered by start, so no later event can
  overlap it any more. That event emits it (``emit_kind`` 'close', ``emitted_at`` its
  start). A piece of g exists once b is a boundary of g (an event of g starts or ends
  there), so it is emitted by the first event, arriving at or after that, that starts at
  or after b; its ``emitted_at`` is always the smallest start of the stream >= b. (Group
  A's event [0, 10), then group B's event [20, 25): B's event emits A's [0, 10) at 20.)
* At end of input the pieces still open are emitted with ``emit_kind`` 'drain' and a
  NULL ``emitted_at`` when ``drain`` (default True, Odysseus' drainAtDone); with
  ``drain=False`` they are not emitted.
* ``dump_at_value_count = k``: elements are counted over the whole input in arrival
  order; at every k-th element (start s) every group's open pieces are cut at s and the
  parts before s are emitted (``emit_kind`` 'dump', ``emitted_at`` s), the rest stays
  open. The cut makes s a boundary of every group whose events cover it. A piece that
  element closes (it ends at or before s) is a 'close'.
* ``latency_optimized=True``: one row per input element instead, in arrival order,
  with only a start timestamp (``window_start`` = the element's start, ``window_end``
  NULL, ``emit_kind`` 'element'): the aggregate over the events of its group that have
  arrived so far (the element included) and are still valid at its start. Elements
  with equal starts each get their own row. ``drain`` has no effect (nothing is held
  back) and ``dump_at_value_count`` is rejected.

How it is computed
------------------
Times are mapped to ranks (all starts and ends), so every group's boundaries are one
sorted array of ``group * R + rank`` keys; the coverage of each elementary interval is
a difference of two ``searchsorted`` counts, so empty intervals are dropped without a
sweep. An event covers a contiguous run of its group's pieces; listing the (piece,
event) memberships and sorting them stably by piece lays every piece's events out
contiguously in arrival order, and the aggregates are the range kernels of
:mod:`streamwindows.range_aggregates` over those ranges (MIN, MAX, MEDIAN, NEST, NTH...
all exact, nothing is ever subtracted). The work is O(memberships), the size of the
answer's contents, done in bounded chunks. The pieces and their aggregates depend on
their group's events only; the emission times are a ``searchsorted`` of the pieces' ends
in the stream's starts (and the dump points), later of that and the arrival from which
the piece exists. :func:`interval_pieces` is the per-group half, for the Spark layer.

Other decisions
---------------
* ``end`` must be after ``start`` (InvalidIntervalError); NULL or infinite times raise
  NullFieldError. Arrival order is the ``arrival`` column (stable) when given, else the
  start order with the frame's row order as tie-break (then the input cannot be out of
  order).
* Output order (``emit_seq``): by the emitting element's arrival position (so by
  ``emitted_at``); on one element by piece start, then the group's first arrival; drains
  last, by piece start then the group's first arrival.
* RATE divides by the piece's duration (seconds for timestamps, the time unit
  otherwise); in latency-optimized rows there is no duration and RATE is NULL.
* Timestamps come back as ``datetime64[ns]`` (time zone kept).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
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
from streamwindows.range_aggregates import Aggregate, parse_aggregates

__all__ = ["INTERVAL_COLUMNS", "interval_aggregate", "interval_pieces"]

FUNCTION = "interval_aggregate"
INTERVAL_COLUMNS = ("window_start", "window_end", "emit_kind", "emitted_at", "emit_seq", "event_count")
_MEMBERSHIP_LIMIT = 1 << 22


def interval_aggregate(
    frame: pd.DataFrame,
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
) -> pd.DataFrame:
    """What Odysseus' AGGREGATE emits on ``frame`` under interval semantics.

    Parameters
    ----------
    frame: the events, one row each, valid over ``[start, end)``: one stream, ordered by
        start across all groups in arrival order.
    start, end: the validity columns (integer, float or timestamp; the same kind).
    aggregates: ``{output_name: "count(*)" | "max(price)" | ("nth", "x", 2) ...}``
        (any function of :mod:`streamwindows.range_aggregates`).
    group_by: columns; each group keeps its own pieces (time is shared: an event of any
        group emits every group's pieces that end at or before its start).
    arrival: an arrival-order column (e.g. the seed's ``seq``); default: start order.
    drain: emit the pieces still open at end of input (default True, drainAtDone).
    latency_optimized: one row per input element with only a start timestamp.
    dump_at_value_count: k >= 1: cut and emit every group's open pieces at every k-th
        element.
    model: the model's name, for error messages.

    Returns the group columns, ``window_start`` and ``window_end`` (the piece; NULL end in
    latency-optimized rows), ``emit_kind`` ('close' | 'dump' | 'drain' | 'element'),
    ``emitted_at`` (start of the emitting element; NULL for drains), ``emit_seq``
    (0-based output order), ``event_count`` (events valid over the piece) and the
    aggregates, sorted by ``emit_seq``. See the module docstring for the decisions.
    Raises :class:`InvalidParameterError` (before reading any data),
    :class:`NullFieldError`, :class:`OutOfOrderError` (a start below the previous
    event's, whatever the groups), :class:`InvalidIntervalError`.
    """
    group_by, kind, parsed = _validate(
        frame, start=start, end=end, aggregates=aggregates, group_by=group_by, arrival=arrival,
        drain=drain, latency_optimized=latency_optimized, dump_at_value_count=dump_at_value_count,
        model=model,
    )
    events = _Events.prepare(frame, start=start, end=end, group_by=group_by, arrival=arrival, kind=kind,
                             parsed=parsed, model=model, global_order=True)
    layout = events.layout
    group_first = layout.rows[layout.group_starts[:-1]]

    if latency_optimized:
        return _latency_optimized(events, parsed, group_by)

    n = len(layout.start)
    dump_positions = np.zeros(0, dtype=np.intp)
    if dump_at_value_count is not None:
        dump_positions = np.arange(dump_at_value_count - 1, n, dump_at_value_count, dtype=np.intp)
    dump_ranks = np.searchsorted(events.uniq, layout.start_arrival[dump_positions])
    pieces = _pieces(events, parsed, dump_ranks)

    # Emission: time is global. The first element (any group) starting at or after the
    # piece's end emits it, once the piece exists (its end is a boundary of its group);
    # or the first dump element at or after its end, whichever arrives first.
    inf = np.iinfo(np.int64).max
    first_reaching = np.searchsorted(layout.start_arrival, pieces.hi, side="left")
    closing = np.where((pieces.exists < n) & (first_reaching < n), np.maximum(first_reaching, pieces.exists), inf)
    piece_gid = pieces.gid
    dump_index = np.searchsorted(dump_ranks, pieces.hi_key - piece_gid * events.span, side="left")
    dumping = np.where(
        dump_index < len(dump_positions),
        dump_positions[np.minimum(dump_index, max(len(dump_positions) - 1, 0))] if len(dump_positions) else inf,
        inf,
    )
    position = np.minimum(closing, dumping)
    emitted = position < inf
    keep = np.flatnonzero(emitted | bool(drain))
    kinds = np.where(~emitted, "drain", np.where(closing <= dumping, "close", "dump"))

    lo_rank = pieces.lo_key - piece_gid * events.span
    order = keep[np.lexsort((group_first[piece_gid[keep]], lo_rank[keep], position[keep]))]
    at = np.where(emitted[order], position[order], 0)
    data: dict[str, Any] = {c: layout.group_values[c][piece_gid[order]] for c in group_by}
    data["window_start"] = from_coordinates(pieces.lo[order], kind, events.time_dtype)
    data["window_end"] = from_coordinates(pieces.hi[order], kind, events.time_dtype)
    data["emit_kind"] = kinds[order].astype(object)
    data["emitted_at"] = from_coordinates(
        layout.start_arrival[at] if n else np.zeros(0, layout.start.dtype), kind, events.time_dtype, emitted[order]
    )
    data["emit_seq"] = np.arange(len(order), dtype=np.int64)
    data["event_count"] = pieces.counts[order]
    for aggregate in parsed:
        data[aggregate.name] = pd.Series(pieces.results[aggregate.name]).array.take(order)
    columns = [*group_by, *INTERVAL_COLUMNS, *(a.name for a in parsed)]
    return pd.DataFrame(data, columns=columns)


PIECE_EXISTS_AT = "__piece_exists_at__"
ELEMENT_ARRIVAL = "__element_arrival__"
GROUP_FIRST = "__group_first__"


def interval_pieces(
    frame: pd.DataFrame,
    *,
    start: str,
    end: str,
    aggregates: Mapping[str, Any],
    group_by: Sequence[str] | str | None = None,
    arrival: str | None = None,
    latency_optimized: bool = False,
    model: str | None = None,
) -> pd.DataFrame:
    """The per-group half of :func:`interval_aggregate`, for a distributed layer that
    hands it whole groups and decides the emission times over the whole stream itself.

    Every piece of every group of ``frame`` with its aggregates: the group columns,
    ``window_start``, ``window_end``, ``event_count``, the aggregates and
    ``__piece_exists_at__``, the arrival value (of ``arrival``; NULL without it) of the
    group's first event that has the piece's end as its start or end, from which on the
    piece exists, and ``__group_first__``, the arrival value of the group's first event
    (its start without ``arrival``). With ``latency_optimized`` the rows of
    :func:`interval_aggregate` (without ``emit_seq``), ``__element_arrival__``, each
    element's arrival value, and ``__group_first__``.
    The order is checked within each group only (a group's events may have had their
    starts raised to a cut, which keeps the group's order but not the stream's): the
    caller checks the whole stream's.
    """
    group_by, kind, parsed = _validate(
        frame, start=start, end=end, aggregates=aggregates, group_by=group_by, arrival=arrival,
        drain=True, latency_optimized=latency_optimized, dump_at_value_count=None, model=model,
    )
    events = _Events.prepare(frame, start=start, end=end, group_by=group_by, arrival=arrival, kind=kind,
                             parsed=parsed, model=model, global_order=False)
    layout = events.layout
    seqs = pd.array(layout.arrival_seqs if arrival is not None else np.zeros(len(layout.rows), np.int64))
    first_rows = layout.rows[layout.group_starts[:-1]]
    if arrival is None:
        group_first = pd.Series(from_coordinates(layout.start_arrival[first_rows], kind, events.time_dtype)).array
    else:
        group_first = seqs.take(first_rows)
    if latency_optimized:
        result = _latency_optimized(events, parsed, group_by).drop(columns="emit_seq")
        result[ELEMENT_ARRIVAL] = seqs if arrival is not None else pd.array([None] * len(result), dtype="Int64")
        result[GROUP_FIRST] = group_first.take(layout.gid[np.argsort(layout.rows, kind="stable")])
        return result
    pieces = _pieces(events, parsed, np.zeros(0, dtype=np.intp))
    n = len(layout.start)
    data: dict[str, Any] = {c: layout.group_values[c][pieces.gid] for c in group_by}
    data["window_start"] = from_coordinates(pieces.lo, kind, events.time_dtype)
    data["window_end"] = from_coordinates(pieces.hi, kind, events.time_dtype)
    data["event_count"] = pieces.counts
    for aggregate in parsed:
        data[aggregate.name] = pieces.results[aggregate.name]
    exists = np.where(pieces.exists < n, pieces.exists, -1)
    if arrival is None:
        data[PIECE_EXISTS_AT] = pd.array([None] * len(exists), dtype="Int64")
    else:
        data[PIECE_EXISTS_AT] = seqs.take(exists, allow_fill=True)
    data[GROUP_FIRST] = group_first.take(pieces.gid)
    return pd.DataFrame(data, columns=[*group_by, "window_start", "window_end", "event_count",
                                       *(a.name for a in parsed), PIECE_EXISTS_AT, GROUP_FIRST])


@dataclass
class _Events:
    """The events laid out (:class:`EventLayout`) and mapped to rank space: keys
    ``group * span + rank`` order (group, time) and compare exactly."""

    layout: Any
    inputs: dict[str, Any]
    uniq: np.ndarray
    span: np.int64
    start_key: np.ndarray
    end_key: np.ndarray
    time_dtype: Any
    kind: str

    @classmethod
    def prepare(cls, frame: pd.DataFrame, *, start: str, end: str, group_by: tuple[str, ...], arrival: str | None,
                kind: str, parsed: list[Aggregate], model: str | None, global_order: bool) -> _Events:
        inputs = list(dict.fromkeys(c for a in parsed for c in a.columns))
        needed = list(dict.fromkeys([start, end, *group_by, *inputs, *([arrival] if arrival else [])]))
        layout = prepare_events(
            frame[needed], start=start, end=end, group_by=group_by, arrival=arrival, kind=kind,
            model=model, global_order=global_order,
        )
        uniq = np.unique(np.concatenate([layout.start, layout.end]))
        span = np.int64(len(uniq) + 1)
        offset = layout.gid.astype(np.int64) * span
        return cls(
            layout=layout,
            inputs={c: take_column(layout.arrival_frame[c], layout.rows) for c in inputs},
            uniq=uniq,
            span=span,
            start_key=offset + np.searchsorted(uniq, layout.start),
            end_key=offset + np.searchsorted(uniq, layout.end),
            time_dtype=frame[start].dtype,
            kind=kind,
        )


@dataclass
class _Pieces:
    gid: np.ndarray  # group number (layout's, by first arrival)
    lo_key: np.ndarray
    hi_key: np.ndarray
    lo: np.ndarray  # coordinates
    hi: np.ndarray
    counts: np.ndarray  # events valid over the piece
    exists: np.ndarray  # arrival position from which the piece's end is a boundary of its group (n: never)
    results: dict[str, Any]  # aggregate name -> values


def _pieces(events: _Events, parsed: list[Aggregate], dump_ranks: np.ndarray) -> _Pieces:
    """Every group's pieces: boundaries are every start and end of the group's events
    and the dump cuts inside its coverage; a piece has at least one valid event."""
    layout, span = events.layout, events.span
    start_key, end_key = events.start_key, events.end_key
    cut_keys = _dump_cuts(start_key, end_key, span, dump_ranks)
    keys = np.unique(np.concatenate([start_key, end_key, cut_keys]))
    starts_sorted = start_key  # non-decreasing: groups in order, starts ordered within each
    ends_sorted = np.sort(end_key)
    lo_key, hi_key = keys[:-1], keys[1:]
    same_group = lo_key // span == hi_key // span
    cover = (np.searchsorted(starts_sorted, lo_key, side="right")
             - np.searchsorted(ends_sorted, lo_key, side="right"))
    pieces = np.flatnonzero(same_group & (cover > 0))
    lo_key, hi_key, counts = lo_key[pieces], hi_key[pieces], cover[pieces].astype(np.int64)
    piece_gid = (lo_key // span).astype(np.intp)

    # When the piece's end became a boundary of its group: the first arrival among the
    # group's events starting or ending there (a dump cut alone: never, by an event).
    n = len(start_key)
    exists = np.full(len(hi_key), n, dtype=np.int64)
    if n:
        at = np.searchsorted(start_key, hi_key, side="left")  # arrival order within a group
        safe = np.minimum(at, n - 1)
        exists = np.where((at < n) & (start_key[safe] == hi_key), layout.rows[safe], exists)
        by_end = np.lexsort((layout.rows, end_key))
        end_keys = end_key[by_end]
        at = np.searchsorted(end_keys, hi_key, side="left")
        safe = np.minimum(at, n - 1)
        exists = np.where((at < n) & (end_keys[safe] == hi_key), np.minimum(exists, layout.rows[by_end[safe]]),
                          exists)

    results: dict[str, Any] = {}
    lo = events.uniq[lo_key - piece_gid * span]
    hi = events.uniq[hi_key - piece_gid * span]
    if parsed:
        # Memberships: event e covers pieces [first, last) of its group's pieces.
        first = np.searchsorted(lo_key, start_key, side="left")
        last = np.searchsorted(lo_key, end_key, side="left")
        results = _aggregate_memberships(parsed, events.inputs, first, last, counts, _durations(lo, hi, events.kind))
    return _Pieces(gid=piece_gid, lo_key=lo_key, hi_key=hi_key, lo=lo, hi=hi, counts=counts, exists=exists,
                   results=results)


def _validate(
    frame: Any, *, start: Any, end: Any, aggregates: Any, group_by: Any, arrival: Any, drain: Any,
    latency_optimized: Any, dump_at_value_count: Any, model: Any,
) -> tuple[tuple[str, ...], str, list[Aggregate]]:
    group_by = check_columns(
        frame, function=FUNCTION, model=model, group_by=group_by, arrival=arrival, reserved=INTERVAL_COLUMNS
    )

    checks = ParameterChecks(FUNCTION, model, frame.columns)
    fail = checks.fail
    checks.column("start", start)
    kind = time_kind(frame[start].dtype)
    if kind is None:
        raise fail("start", "an integer, float or timestamp column", start, f" (dtype {frame[start].dtype})")
    checks.column("end", end)
    if end == start or time_kind(frame[end].dtype) != kind:
        raise fail("end", f"a column other than `start` of the same kind ({kind})", end,
                   f" (dtype {frame[end].dtype})")
    checks.flag("drain", drain)
    checks.flag("latency_optimized", latency_optimized)
    checks.count("dump_at_value_count", dump_at_value_count, "an integer >= 1 or None", optional=True)
    if dump_at_value_count is not None:
        if latency_optimized:
            raise fail(
                "dump_at_value_count", "None when latency_optimized=True (every element emits already)",
                dump_at_value_count,
            )
    parsed = parse_aggregates(aggregates, dict(frame.dtypes), FUNCTION, model=model, context=("durations",))
    validate_outputs(
        None, [a.name for a in parsed], function=FUNCTION, model=model, group_by=group_by,
        reserved=INTERVAL_COLUMNS,
    )
    return group_by, kind, parsed


def _dump_cuts(start_key: np.ndarray, end_key: np.ndarray, span: np.int64, dump_ranks: np.ndarray) -> np.ndarray:
    """Keys of the dump points that fall strictly inside a group's covered time."""
    if not len(dump_ranks) or not len(start_key):
        return np.zeros(0, dtype=np.int64)
    # Merged coverage intervals per group (keys of later groups are larger, so the running
    # maximum never carries over from one group to the next).
    reach = np.maximum.accumulate(end_key)
    begins = np.ones(len(start_key), dtype=bool)
    begins[1:] = start_key[1:] > reach[:-1]
    first = np.flatnonzero(begins)
    cover_lo = start_key[first]
    cover_hi = reach[np.append(first[1:], len(start_key)) - 1]
    group = cover_lo // span
    dumps = np.unique(dump_ranks)
    a = np.searchsorted(dumps, cover_lo - group * span, side="right")
    b = np.searchsorted(dumps, cover_hi - group * span, side="left")
    lengths = np.maximum(b - a, 0)
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.cumsum(lengths) - lengths
    picks = np.arange(total) - np.repeat(offsets - a, lengths)
    return np.repeat(group * span, lengths) + dumps[picks]


def _durations(lo: np.ndarray, hi: np.ndarray, kind: str) -> np.ndarray:
    durations = (hi - lo).astype(np.float64)
    return durations / 1e9 if kind == "timestamp" else durations


def _aggregate_memberships(
    parsed: list[Aggregate],
    inputs: Mapping[str, Any],
    first: np.ndarray,
    last: np.ndarray,
    counts: np.ndarray,
    durations: np.ndarray,
) -> dict[str, Any]:
    """Aggregates of output rows whose events are given as memberships.

    Event e (in layout order, i.e. arrival order within each group) belongs to output
    rows ``[first[e], last[e])``; ``first`` is non-decreasing. ``counts`` is the number
    of events of each output row. The memberships are laid out row after row, events in
    arrival order within a row, and the range kernels run over them, in chunks of at most
    ``_MEMBERSHIP_LIMIT`` memberships.
    """
    n_out = len(counts)
    ends = np.cumsum(counts)
    parts: dict[str, list[Any]] = {a.name: [] for a in parsed}
    row = 0
    while row < n_out or (n_out == 0 and row == 0):
        if n_out == 0:
            stop = 0
        else:
            base = ends[row - 1] if row else 0
            stop = max(row + 1, int(np.searchsorted(ends, base + _MEMBERSHIP_LIMIT, side="right")))
        candidates = np.arange(int(np.searchsorted(first, stop, side="left")))
        candidates = candidates[last[candidates] > row]
        a = np.maximum(first[candidates], row)
        b = np.minimum(last[candidates], stop)
        lengths = b - a
        offsets = np.cumsum(lengths) - lengths
        total = int(lengths.sum())
        owner = np.arange(total, dtype=np.intp) - np.repeat(offsets - a, lengths)
        member = np.repeat(candidates, lengths)
        by_row = np.argsort(owner, kind="stable")
        owner, member = owner[by_row], member[by_row]
        rows = np.arange(row, stop)
        lo = np.searchsorted(owner, rows, side="left")
        hi = np.searchsorted(owner, rows, side="right")
        gathered = {c: pd.api.extensions.take(column, member) for c, column in inputs.items()}
        for aggregate in parsed:
            parts[aggregate.name].append(
                aggregate.compute(gathered, lo, hi, durations=durations[row:stop])
            )
        if n_out == 0:
            break
        row = stop
    return {
        name: chunks[0] if len(chunks) == 1 else pd.concat([pd.Series(c) for c in chunks], ignore_index=True).array
        for name, chunks in parts.items()
    }


def _latency_optimized(events: _Events, parsed: list[Aggregate], group_by: tuple[str, ...]) -> pd.DataFrame:
    """One row per element: its group's arrived events still valid at its start."""
    layout, start_key, end_key = events.layout, events.start_key, events.end_key
    kind, time_dtype, layout_inputs = events.kind, events.time_dtype, events.inputs
    n = len(start_key)
    # Event j (layout index) is in the rows of the elements j .. (first element of the
    # group starting at or after its end) - 1; the keys keep it inside its group.
    first = np.arange(n, dtype=np.intp)
    last = np.searchsorted(start_key, end_key, side="left")
    delta = np.bincount(first, minlength=n + 1) - np.bincount(last, minlength=n + 1)
    counts = np.cumsum(delta[:-1]).astype(np.int64)
    order = np.argsort(layout.rows, kind="stable")  # layout rows by arrival position
    data: dict[str, Any] = {c: layout.group_values[c][layout.gid[order]] for c in group_by}
    data["window_start"] = from_coordinates(layout.start[order], kind, time_dtype)
    data["window_end"] = from_coordinates(np.zeros(n, layout.start.dtype), kind, time_dtype, np.zeros(n, bool))
    data["emit_kind"] = np.full(n, "element", dtype=object)
    data["emitted_at"] = from_coordinates(layout.start[order], kind, time_dtype)
    data["emit_seq"] = np.arange(n, dtype=np.int64)
    data["event_count"] = counts[order]
    if parsed:
        results = _aggregate_memberships(parsed, layout_inputs, first, last, counts, np.full(n, np.nan))
        for aggregate in parsed:
            data[aggregate.name] = pd.Series(results[aggregate.name]).array.take(order)
    columns = [*group_by, *INTERVAL_COLUMNS, *(a.name for a in parsed)]
    return pd.DataFrame(data, columns=columns)
