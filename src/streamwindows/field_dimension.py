"""StreamBase Aggregate operator with a field-based dimension, replayed in batch.

The contract is docs/semantics.md, StreamBase section: each tuple t (value v, group g), in arrival
order, (1) must not go below the previous tuple's value, (2) closes and emits every open
window of every group with ``s + size <= v``, (3) makes every open window emit an
intermediate row at each point ``p = s + k*emit_every < s + size`` (k >= 1) that v has
reached, once per point, counting only the points after the value v0 of the tuple that
opened the window (``p > v0``), (4) opens g's new windows, (5) enters g's open windows.
At end of input the open windows are emitted only when ``drain``.

How it is computed without replaying tuple by tuple
----------------------------------------------------
* Which windows g opens depends on g's own values only. With ``openval(v) = offset +
  floor((v - offset)/advance)*advance`` and grid index ``K(v)``, tuple j of g opens the
  grid indices ``[a_j, K(v_j)]`` where ``a_j`` is ``K(v_j)`` (gap, 'single'), the first
  index whose window still holds v_j (gap, 'all'), or ``max(K(v_{j-1}) + 1, that
  index)`` otherwise: after any tuple with value u the latest start of g is openval(u).
  With ``opening='none'`` the windows form a chain (a window at v_j, the next at g's
  first tuple with value >= v_j + size); the chain is found by pointer doubling.
* Every tuple of g that arrived before a window opened has a value below its start, so
  a window's contents are g's tuples with ``s <= value < end``: a contiguous range
  ``[lo, hi)`` of g's rows starting at the opening tuple.
* Only the emission *time* involves other groups. A close at ``end`` is emitted by the
  first tuple (any group) with value >= end. A window's intermediate points are those
  after its opening value v0 (``p > v0``; the earlier ones are never emitted), so a
  point p is emitted by the first tuple with value >= p, which arrives after the
  opening tuple, provided that tuple's value is still below ``end`` (otherwise the
  window closes on it first and the point is never emitted). Its contents are g's
  tuples that arrived before the emitting tuple: g's tuples with value < p (the opening
  tuple first), ``hi`` = the first index with value >= p, computed per group.

So the work splits into public steps that a distributed layer can run separately:
:func:`validate_parameters` (no data), :func:`check_arrival_order` (the whole stream),
:func:`group_windows` (one group, embarrassingly parallel), :func:`resolve_emissions`
(as-of search of the thresholds in the global value sequence) and
:func:`order_emissions` (total order and output types). :func:`field_dimension_aggregate`
chains them on a pandas frame, running the per-group step on all groups at once (the
same vectorized core, over all groups' rows laid out group after group). That core's
three parts are public too, for a layer that lays out many groups itself (the Spark
value-range plan, spark/field_dimension_ranges.py): :func:`window_candidates` (every
window and emission point of rows laid out group after group), :func:`grouped_search`
(the search it needs: a group's first row with value >= x) and
:func:`window_durations` (a window's span, for RATE). Everything is
O(rows + windows + emission candidates) numpy work plus sorts; the only loop that is
not bounded by a constant is the pointer doubling of ``opening='none'`` (log2 of the
largest group's size rounds).

Decisions the contract leaves open
----------------------------------
* Order within one tuple: all closes first, by (window start, group's first arrival);
  then the intermediates by (window start, group's first arrival, point). Drains come
  after everything, by (window start, group's first arrival).
* A window opened by a tuple of value v0 emits intermediate rows only at its points
  ``p > v0``: the points at or before v0 (a window 'all' opens in the past, or any grid
  window opened well after its start) went by before the window existed and are never
  emitted, on any later tuple. Points of a window that closes on the same tuple are not
  emitted: the window is gone when step 3 runs. Drain emits each still-open window once
  with its final contents; points never reached are not emitted.
* Without ``size`` there is no grid: ``advance`` must be omitted, ``offset`` must be 0
  and each group has one window, starting at its first value, that never closes. With
  ``opening='none'`` ``advance`` and a non-zero ``offset`` are rejected too.
  ``optional_windows='all'`` needs the grid (``opening='advance'`` and a ``size``).
* Windows opened on the grid hold at least their opening tuple; a grid window that would
  hold no tuple is never opened (the 0 -> 9.2 example).
* Number parameters with an integral value (``30`` or ``30.0``) are integers: an
  integer field with integer size, advance and offset keeps integer window bounds.
  Otherwise the computation runs in float64, with the grid ``offset + k*advance``
  evaluated in float64 and ``openval`` corrected so that ``openval(v) <= v`` holds as
  computed.
* Timestamp fields run on integer nanoseconds; ``size``, ``advance``, ``offset`` and
  ``emit_every`` are seconds (int or float, rounded to the nanosecond) or timedeltas.
  Window bounds and ``emitted_at`` come back as ``datetime64[ns]`` (time zone kept).
* Without ``size``, intermediate points continue for as long as the input does (a
  window that never closes emits at every point reached).
* Output types: ``window_start`` int64 / float64 / datetime64; ``window_end`` and
  ``emitted_at`` nullable (``Int64`` for integer bounds and integer fields); aggregates
  per :mod:`streamwindows.range_aggregates`.
* RATE divides by the window's duration ``window_end - window_start`` (seconds for a
  timestamp field, the field's unit otherwise), for intermediate rows too; without
  ``size`` a window has no end and RATE is NULL.
* NULL group keys form a group of their own (SQL GROUP BY). A NULL or infinite field
  value raises :class:`NullFieldError`; so does a NULL in the ``seq`` column. Ties in
  ``seq`` keep the frame's row order.
"""

from __future__ import annotations

import datetime
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import (
    is_bool_dtype,
    is_datetime64_any_dtype,
    is_integer_dtype,
    pandas_dtype,
)

from streamwindows.checks import ParameterChecks
from streamwindows.errors import (
    InvalidParameterError,
    NullFieldError,
    OutOfOrderError,
    format_allowed,
)
from streamwindows.grouping import group_codes, stable_group_order, time_kind
from streamwindows.range_aggregates import Aggregate, parse_aggregates

__all__ = [
    "ARRIVAL_POSITION",
    "CANDIDATE_COLUMNS",
    "FieldDimensionParams",
    "OUTPUT_COLUMNS",
    "check_arrival_order",
    "field_coordinates",
    "field_dimension_aggregate",
    "group_windows",
    "grouped_search",
    "order_emissions",
    "resolve_emissions",
    "validate_parameters",
    "window_candidates",
    "window_durations",
]

FUNCTION = "field_dimension_aggregate"
ARRIVAL_POSITION = "arrival_position"
OPENINGS = ("advance", "none")
OPTIONAL_WINDOWS = ("single", "all")
OUTPUT_COLUMNS = (
    "window_start",
    "window_end",
    "emit_kind",
    "emitted_at",
    "emit_seq",
    "row_count",
)
CANDIDATE_COLUMNS = (
    "window_start",
    "window_end",
    "emit_kind",
    "emit_threshold",
    "opened_after_position",
    "group_first_position",
    "contents_lo",
    "contents_hi",
    "row_count",
)
_RESERVED = tuple(
    dict.fromkeys(OUTPUT_COLUMNS + CANDIDATE_COLUMNS + ("emitted_position",))
)
EMIT_KINDS = ("close", "intermediate", "drain")  # also the phase order on one tuple
_CLOSE, _INTERMEDIATE, _DRAIN = range(3)
_GROUP_NUMBER = "__group_number__"  # internal stand-in for the group columns


# --------------------------------------------------------------------------------------
# (a) Parameters


@dataclass(frozen=True)
class FieldDimensionParams:
    """Validated, normalized parameters of one field-dimension aggregation.

    ``size``, ``advance``, ``offset`` and ``emit_every`` are in *coordinates*: the
    field's own units, except timestamps, which are integer nanoseconds since the epoch.
    ``exact`` says the coordinates are int64 (else float64); ``integer_bounds`` that an
    integer field keeps integer window bounds in the output.
    """

    field: str
    field_kind: str  # 'int' | 'float' | 'timestamp'
    field_dtype: Any
    exact: bool
    integer_bounds: bool
    size: int | float | None
    advance: int | float | None
    offset: int | float
    emit_every: int | float | None
    group_by: tuple[str, ...]
    opening: str
    optional_windows: str
    aggregates: tuple[Aggregate, ...]
    drain: bool
    seq: str | None
    model: str | None
    function: str = FUNCTION

    @property
    def coordinate_dtype(self) -> np.dtype:
        return np.dtype(np.int64) if self.exact else np.dtype(np.float64)

    @property
    def output_columns(self) -> tuple[str, ...]:
        return self.group_by + OUTPUT_COLUMNS + tuple(a.name for a in self.aggregates)


def _is_timedelta(value: Any) -> bool:
    return isinstance(value, (datetime.timedelta, np.timedelta64))


def _to_number(value: Any) -> int | float | None:
    """An int or float for a real number (integral values as int), else None."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    number = float(value)
    if not np.isfinite(number):
        return None
    return int(number) if number.is_integer() else number


def validate_parameters(
    columns: Mapping[str, Any],
    *,
    field: str,
    size: Any = None,
    advance: Any = None,
    offset: Any = 0,
    group_by: Sequence[str] | str = (),
    opening: str = "advance",
    optional_windows: str = "single",
    emit_every: Any = None,
    aggregates: Mapping[str, Any],
    drain: bool = False,
    seq: str | None = None,
    model: str | None = None,
    function: str = FUNCTION,
) -> FieldDimensionParams:
    """Check every parameter against the input's schema; no data is read.

    ``columns`` maps the input's column names to their numpy/pandas types or type names
    (``df.dtypes`` will do; ``{"time": "int64", "ts": "datetime64[us, UTC]"}`` too).
    Returns the normalized :class:`FieldDimensionParams`; raises
    :class:`InvalidParameterError` naming the parameter, the rule and the value.
    ``advance`` defaults to ``size`` when windows open on the advance grid.
    """
    dtypes = {name: pandas_dtype(dtype) for name, dtype in columns.items()}
    checks = ParameterChecks(function, model, dtypes)
    fail = checks.fail

    if opening not in OPENINGS:
        raise fail("opening", f"one of {format_allowed(OPENINGS)}", opening)
    if optional_windows not in OPTIONAL_WINDOWS:
        raise fail(
            "optional_windows", f"one of {format_allowed(OPTIONAL_WINDOWS)}", optional_windows
        )
    checks.column("field", field)
    kind = time_kind(dtypes[field])
    if kind is None:
        raise fail(
            "field", "an int, float or timestamp column", field, f" (dtype {dtypes[field]})"
        )

    group_by = checks.group_by(group_by, _RESERVED)
    checks.column("seq", seq, optional=True)
    checks.flag("drain", drain)

    def length(parameter: str, value: Any, *, positive: bool) -> int | float | None:
        if value is None:
            return None
        if kind == "timestamp":
            rule = "a number of seconds or a timedelta"
            if _is_timedelta(value) and not pd.isna(value):
                number: int | float | None = int(pd.Timedelta(value).value)
            else:
                number = _to_number(value)
                if number is not None:
                    number = number * 10**9 if isinstance(number, int) else round(number * 1e9)
        else:
            rule = "a number"
            number = _to_number(value)
        if number is None:
            raise fail(parameter, rule + (" > 0" if positive else ""), value)
        if positive and number <= 0:
            raise fail(parameter, rule + " > 0", value)
        return number

    size_c = length("size", size, positive=True)
    advance_c = length("advance", advance, positive=True)
    if offset is None:
        offset = 0
    offset_c = length("offset", offset, positive=False)
    emit_c = length("emit_every", emit_every, positive=True)

    grid = opening == "advance" and size_c is not None
    if advance_c is not None:
        if size_c is None:
            raise fail(
                "advance", "omitted when `size` is not given (a window that never closes "
                "cannot advance)", advance,
            )
        if opening == "none":
            raise fail("advance", "omitted when opening='none'", advance)
        if advance_c > size_c:
            raise fail("advance", f"<= size ({size})", advance)
    if grid and advance_c is None:
        advance_c = size_c
    if offset_c != 0 and not grid:
        raise fail(
            "offset",
            "0 when windows do not follow the advance grid (opening='none' or no `size`)",
            offset,
        )
    if optional_windows == "all" and not grid:
        raise fail(
            "optional_windows",
            "'single' when windows do not follow the advance grid (opening='none' or no "
            "`size`)",
            optional_windows,
        )

    parsed = parse_aggregates(aggregates, dtypes, function, model=model)
    for aggregate in parsed:
        if aggregate.name in _RESERVED or aggregate.name in group_by:
            raise fail(
                "aggregates",
                "keyed by output names that are neither group_by columns nor reserved "
                f"({', '.join(_RESERVED)})",
                aggregate.name,
            )

    lengths = (size_c, advance_c, offset_c, emit_c)
    integral = all(x is None or isinstance(x, int) for x in lengths)
    exact = kind == "timestamp" or (kind == "int" and integral)
    integer_bounds = kind == "int" and all(
        x is None or isinstance(x, int) for x in (size_c, advance_c, offset_c)
    )

    def coordinate(x: int | float | None) -> int | float | None:
        return x if x is None or exact else float(x)

    return FieldDimensionParams(
        field=field,
        field_kind=kind,
        field_dtype=dtypes[field],
        exact=exact,
        integer_bounds=integer_bounds,
        size=coordinate(size_c),
        advance=coordinate(advance_c),
        offset=coordinate(offset_c),
        emit_every=coordinate(emit_c),
        group_by=group_by,
        opening=opening,
        optional_windows=optional_windows,
        aggregates=tuple(parsed),
        drain=bool(drain),
        seq=seq,
        model=model,
        function=function,
    )


# --------------------------------------------------------------------------------------
# (b) Arrival order


def _normalized(values: Any) -> np.ndarray | pd.api.extensions.ExtensionArray:
    if isinstance(values, (pd.Series, pd.Index)):
        values = values.array
    if isinstance(values, pd.arrays.NumpyExtensionArray):
        values = np.asarray(values)
    if not isinstance(values, (np.ndarray, pd.api.extensions.ExtensionArray)):
        values = np.asarray(values)
    if isinstance(values, np.ndarray) and values.dtype.kind == "O":
        values = pd.array(values)
    return values


def _comparable(values: Any) -> tuple[np.ndarray, np.ndarray]:
    """(numpy values that compare like the field, NULL-or-not-finite mask)."""
    nulls = np.asarray(pd.isna(values), dtype=bool)
    dtype = values.dtype
    if is_datetime64_any_dtype(dtype):
        numbers_ = np.asarray(pd.DatetimeIndex(values).asi8)
    elif isinstance(values, np.ndarray):
        numbers_ = values
    elif is_integer_dtype(dtype) and not is_bool_dtype(dtype):
        numbers_ = np.asarray(values.to_numpy(dtype=np.int64, na_value=0))
    else:
        numbers_ = np.asarray(values.to_numpy(dtype=np.float64, na_value=np.nan))
    if numbers_.dtype.kind == "f":
        nulls = nulls | ~np.isfinite(numbers_)
    return numbers_, nulls


def check_arrival_order(
    values: Any,
    positions: Any = None,
    groups: Mapping[str, Any] | None = None,
    *,
    field: str = "field",
    seqs: Any = None,
    model: str | None = None,
) -> None:
    """Raise if the field is NULL/not finite or decreases anywhere in arrival order.

    ``values`` are the field's values in arrival order (any numeric or datetime array);
    ``positions`` their arrival positions (default 0, 1, ...); ``groups`` the group
    columns (a frame, or a mapping of name to column) aligned with ``values`` and
    ``seqs`` the arrival-order column's values, both only used to name the offending
    row. Equal consecutive values are fine. The first offending row in arrival order is
    reported: :class:`NullFieldError` or :class:`OutOfOrderError` (naming the position,
    group and both values).
    """
    values = _normalized(values)
    numbers_, bad = _comparable(values)
    n = len(numbers_)
    if n == 0:
        return
    first_bad = int(np.argmax(bad)) if bad.any() else n
    decreasing = numbers_[1:] < numbers_[:-1]
    first_decrease = int(np.argmax(decreasing)) + 1 if decreasing.any() else n
    if first_bad == n and first_decrease == n:
        return
    row = min(first_bad, first_decrease)
    original = values

    def position(i: int) -> int:
        return int(positions[i]) if positions is not None else i

    def group(i: int) -> dict[str, Any]:
        if groups is None:
            return {}
        return {
            c: groups[c].iloc[i] if isinstance(groups[c], pd.Series) else groups[c][i]
            for c in groups
        }

    seq = None if seqs is None else seqs[row]
    if first_bad <= first_decrease:
        value = original[row]
        raise NullFieldError(
            field=field,
            position=position(row),
            group=group(row),
            seq=seq,
            value=None if pd.isna(value) else value,
            model=model,
        )
    raise OutOfOrderError(
        field=field,
        position=position(row),
        group=group(row),
        value=original[row],
        previous_value=original[row - 1],
        seq=seq,
        previous_position=position(row - 1),
        previous_group=group(row - 1),
        model=model,
    )


def field_coordinates(values: Any, params: FieldDimensionParams) -> np.ndarray:
    """The field's values as coordinates: int64 (exact) or float64; timestamps in ns.

    Assumes :func:`check_arrival_order` passed (no NULLs).
    """
    if params.field_kind == "timestamp":
        index = pd.DatetimeIndex(values)
        if index.tz is not None:
            index = index.tz_convert("UTC").tz_localize(None)
        return np.asarray(index.as_unit("ns").asi8, dtype=np.int64)
    array = values.array if isinstance(values, (pd.Series, pd.Index)) else values
    if isinstance(array, pd.api.extensions.ExtensionArray):
        array = array.to_numpy(dtype=params.coordinate_dtype, na_value=0)
    return np.asarray(array).astype(params.coordinate_dtype, copy=False)


def _horizon_coordinate(horizon: Any, params: FieldDimensionParams) -> int | float:
    if params.field_kind == "timestamp":
        stamp = pd.Timestamp(horizon)
        if stamp.tzinfo is not None:
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return int(stamp.as_unit("ns").value)
    return int(horizon) if params.exact else float(horizon)


# --------------------------------------------------------------------------------------
# (c) Windows of one group (the vectorized core runs on many groups at once)


def sorted_search(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """``np.searchsorted(haystack, needles, side="left")``, fast for large inputs.

    Binary searches in a big array are cache misses unless consecutive needles are
    close; sorting the needles first (cheap: they come as a few sorted runs) makes the
    searches sweep the haystack once.
    """
    if len(needles) < 2 or not (needles[1:] < needles[:-1]).any():
        return np.searchsorted(haystack, needles, side="left")
    order = np.argsort(needles, kind="stable")
    found = np.empty(len(needles), dtype=np.int64)
    found[order] = np.searchsorted(haystack, needles[order], side="left")
    return found


def _grid(k: np.ndarray, params: FieldDimensionParams) -> np.ndarray:
    """Window start ``offset + k*advance`` of grid index k, exactly as the engine rounds."""
    if params.exact:
        return params.offset + k * params.advance
    return params.offset + k.astype(np.float64) * params.advance


def _largest(ok: Callable[[np.ndarray], np.ndarray], estimate: np.ndarray) -> np.ndarray:
    """Largest integer k with ok(k), for ok true-then-false in k, from a close estimate.

    Float rounding can put ``floor(x / step)`` one off; this nudges it until the
    predicate, evaluated with the same float expressions as the windows, agrees.
    """
    k = estimate.astype(np.int64)
    while True:
        wrong = ~ok(k)
        if not wrong.any():
            break
        k = k - wrong
    while True:
        more = ok(k + 1)
        if not more.any():
            return k
        k = k + more


def _grid_index(x: np.ndarray, params: FieldDimensionParams) -> np.ndarray:
    """K(x): the grid index of openval(x), the largest start <= x."""
    if params.exact:
        return (x - params.offset) // params.advance
    estimate = np.floor((x - params.offset) / params.advance)
    return _largest(lambda k: _grid(k, params) <= x, estimate)


def _first_holding(x: np.ndarray, params: FieldDimensionParams) -> np.ndarray:
    """The smallest grid index whose window [s, s + size) still holds x (s + size > x)."""
    size = params.size
    if params.exact:
        return (x - size - params.offset) // params.advance + 1
    estimate = np.floor((x - size - params.offset) / params.advance)
    return _largest(lambda k: _grid(k, params) + size <= x, estimate) + 1


def _point_count(
    starts: np.ndarray, every: int | float, limit: np.ndarray | int | float, *, strict: bool,
    exact: bool,
) -> np.ndarray:
    """Largest i >= 0 with ``starts + i*every`` below (strict) or at most ``limit``."""
    if exact:
        gap = limit - starts - (1 if strict else 0)
        return np.maximum(gap // every, 0)
    estimate = np.floor((limit - starts) / every)

    def ok(i: np.ndarray) -> np.ndarray:
        points = starts + i.astype(np.float64) * every
        return (points < limit if strict else points <= limit) | (i <= 0)

    return np.maximum(_largest(ok, np.maximum(estimate, 0)), 0)


def _ramp(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., c0-1, 0, 1, ..., c1-1, ...: the index within each repeated block."""
    total = int(counts.sum())
    return np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)


def _chain(
    u: np.ndarray, group_starts: np.ndarray, gid: np.ndarray, size: int | float, search: Any
) -> np.ndarray:
    """Rows that open a window with opening='none': each group's first row, then the
    first row whose value reaches the current window's end, and so on.

    The chain is sequential by nature; pointer doubling walks all chains of all groups at
    once in O(n log n): after the round with jump length L the first 2L links are marked.
    """
    n = len(u)
    group_end = group_starts[1:][gid]
    nxt = search(u + size, gid)
    jump = np.append(np.where(nxt >= group_end, n, nxt), n)
    marked = np.zeros(n + 1, dtype=bool)
    marked[group_starts[:-1]] = True
    longest = int(np.diff(group_starts).max()) if len(group_starts) > 1 else 0
    length = 1
    while length < longest:
        marked[jump[np.flatnonzero(marked)]] = True
        jump = jump[jump]
        length *= 2
    return np.flatnonzero(marked[:n])


def window_candidates(
    u: np.ndarray,
    group_starts: np.ndarray,
    params: FieldDimensionParams,
    search: Callable[[np.ndarray, np.ndarray], np.ndarray],
    horizon: int | float | None,
) -> dict[str, np.ndarray | None]:
    """All emission candidates of all groups, as numpy arrays.

    ``u`` holds the coordinates of every row, grouped (group g occupies rows
    ``group_starts[g]:group_starts[g+1]``, in arrival order); ``search(x, g)`` returns,
    per element, the first row of group g with value >= x (or the group's end).
    """
    n = len(u)
    n_groups = len(group_starts) - 1
    gid = np.repeat(np.arange(n_groups), np.diff(group_starts))
    size = params.size

    if size is None:
        opened = group_starts[:-1].copy()
        starts = u[opened]
    elif params.opening == "none":
        opened = _chain(u, group_starts, gid, size, search)
        starts = u[opened]
    else:
        k_open = _grid_index(u, params)
        k_holding = _first_holding(u, params)
        gap = np.zeros(n, dtype=bool)
        gap[1:] = (u[1:] - u[:-1]) >= size
        gap[group_starts[:-1]] = True
        k_previous = np.empty_like(k_open)
        k_previous[1:] = k_open[:-1]
        k_previous[:1] = 0
        if params.optional_windows == "single":
            k_gap = np.maximum(k_open, k_holding)
        else:
            k_gap = k_holding
        k_low = np.where(gap, k_gap, np.maximum(k_previous + 1, k_holding))
        counts = np.maximum(k_open - k_low + 1, 0)
        opened = np.repeat(np.arange(n), counts)
        starts = _grid(np.repeat(k_low, counts) + _ramp(counts), params)
    ends = None if size is None else starts + size
    window_gid = gid[opened]
    n_windows = len(opened)

    if ends is None:
        close_hi = group_starts[1:][window_gid]
        close_threshold = np.zeros(n_windows, dtype=params.coordinate_dtype)
    else:
        close_hi = search(ends, window_gid)
        close_threshold = ends

    if params.emit_every is not None:
        every = params.emit_every
        limits = []
        if ends is not None:
            limits.append(_point_count(starts, every, ends, strict=True, exact=params.exact))
        if horizon is not None:
            limits.append(_point_count(starts, every, horizon, strict=False, exact=params.exact))
        if limits:
            n_points = np.minimum.reduce(limits).astype(np.int64)
        else:  # no rows at all
            n_points = np.zeros(n_windows, dtype=np.int64)
        # Only the points after the opening tuple's value: the window did not exist when
        # the stream passed the earlier ones (k = 1 .. skipped are never emitted).
        skipped = _point_count(starts, every, u[opened], strict=False, exact=params.exact)
        n_points = np.maximum(n_points - skipped, 0)
        window_of_point = np.repeat(np.arange(n_windows), n_points)
        local = _ramp(n_points)  # 0, 1, ... within each window's points
        step = local + 1 + skipped[window_of_point]
        if params.exact:
            points = starts[window_of_point] + step * every
        else:
            points = starts[window_of_point] + step.astype(np.float64) * every
        # p > the opening value: the group's rows with value < p start with the opening
        # tuple, and are exactly those that arrived before the emitting tuple.
        point_hi = search(points, window_gid[window_of_point])
    else:
        n_points = np.zeros(n_windows, dtype=np.int64)
        window_of_point = np.zeros(0, dtype=np.int64)
        local = np.zeros(0, dtype=np.int64)
        points = np.zeros(0, dtype=params.coordinate_dtype)
        point_hi = np.zeros(0, dtype=np.int64)

    if not len(points):
        return {
            "gid": window_gid,
            "window_start": starts,
            "window_end": ends,
            "is_point": np.zeros(n_windows, dtype=bool),
            "threshold": close_threshold.astype(params.coordinate_dtype, copy=False),
            "has_threshold": np.full(n_windows, ends is not None),
            "lo": opened,
            "hi": close_hi,
        }
    # Candidates per window in the order they could emit: its points, then its close.
    block = n_points + 1
    block_start = np.cumsum(block) - block
    point_slot = np.repeat(block_start, n_points) + local
    close_slot = block_start + n_points
    total = int(block.sum())
    window = np.empty(total, dtype=np.int64)
    window[point_slot] = window_of_point
    window[close_slot] = np.arange(n_windows)
    is_point = np.ones(total, dtype=bool)
    is_point[close_slot] = False
    threshold = np.empty(total, dtype=params.coordinate_dtype)
    threshold[point_slot] = points
    threshold[close_slot] = close_threshold
    hi = np.empty(total, dtype=np.int64)
    hi[point_slot] = point_hi
    hi[close_slot] = close_hi
    return {
        "gid": window_gid[window],
        "window_start": starts[window],
        "window_end": None if ends is None else ends[window],
        "is_point": is_point,
        "threshold": threshold,
        "has_threshold": is_point if ends is None else np.ones(len(window), dtype=bool),
        "lo": opened[window],
        "hi": hi,
    }


Columns = dict[str, Any]  # column name -> numpy array or pandas ExtensionArray


def _array(column: Any) -> Any:
    """A frame column as a numpy array or a pandas ExtensionArray (no copy)."""
    array = column.array if isinstance(column, (pd.Series, pd.Index)) else column
    if isinstance(array, pd.arrays.NumpyExtensionArray):
        return np.asarray(array)  # to_numpy() would scan object columns for NULLs
    return array


def _take(array: Any, index: np.ndarray) -> Any:
    return array[index] if isinstance(array, np.ndarray) else array.take(index)


def _values_and_valid(array: Any, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(values as ``dtype`` with NULLs as 0, validity mask) of a nullable column."""
    array = _array(array)
    if isinstance(array, np.ndarray):
        valid = ~np.isnan(array) if array.dtype.kind == "f" else np.ones(len(array), bool)
        values = array if valid.all() else np.where(valid, array, 0)
        return values.astype(dtype, copy=False), valid
    valid = ~np.asarray(array.isna(), dtype=bool)
    return np.asarray(array.to_numpy(dtype=dtype, na_value=0)), valid


def _kind_codes(kinds: Any) -> np.ndarray:
    """emit_kind names -> int8 codes (internal columns carry the codes already)."""
    kinds = _array(kinds)
    if isinstance(kinds, np.ndarray) and kinds.dtype.kind in "iu":
        return kinds.astype(np.int8, copy=False)
    return pd.Categorical(np.asarray(kinds, dtype=object), categories=EMIT_KINDS).codes


def _kind_names(codes: np.ndarray) -> np.ndarray:
    return np.array(EMIT_KINDS, dtype=object)[codes]


def _frame(columns: Columns, names: Sequence[str] | None = None) -> pd.DataFrame:
    """A frame of the columns without copying them (public frames name the kinds)."""
    columns = dict(columns)
    kinds = columns.get("emit_kind")
    if isinstance(kinds, np.ndarray) and kinds.dtype.kind in "iu":
        columns["emit_kind"] = _kind_names(kinds)
    return pd.DataFrame(columns, columns=names, copy=False)


def _nullable_coordinates(values: np.ndarray, valid: np.ndarray | None, exact: bool) -> Any:
    if valid is None or valid.all():
        return values
    if exact:
        return pd.arrays.IntegerArray(values.astype(np.int64), ~valid)
    return np.where(valid, values, np.nan)


def _candidate_columns(
    raw: dict[str, Any],
    group_values: Columns,
    inputs: Columns,
    positions: np.ndarray,
    group_starts: np.ndarray,
    params: FieldDimensionParams,
    *,
    group_numbers: bool = False,
) -> Columns:
    """Candidate arrays -> the documented candidate columns, with the aggregates.

    ``group_values`` hold each group's key (one entry per group), ``inputs`` the
    aggregates' input columns and ``positions`` the arrival positions, both in the
    grouped row order of ``raw``. With ``group_numbers`` the group columns are left out
    and a column of group numbers stands in for them (cheaper to carry along).
    """
    gid = raw["gid"]
    first_row = group_starts[:-1][gid]
    lo, hi = raw["lo"], raw["hi"]
    n = len(gid)
    if group_numbers:
        data: Columns = {_GROUP_NUMBER: gid}
    else:
        data = {c: _take(group_values[c], gid) for c in params.group_by}
    data["window_start"] = raw["window_start"]
    if raw["window_end"] is None:
        data["window_end"] = _nullable_coordinates(
            np.zeros(n, dtype=params.coordinate_dtype), np.zeros(n, dtype=bool), params.exact
        )
    else:
        data["window_end"] = raw["window_end"]
    data["emit_kind"] = np.where(raw["is_point"], _INTERMEDIATE, _CLOSE).astype(np.int8)
    data["emit_threshold"] = _nullable_coordinates(
        raw["threshold"], raw["has_threshold"], params.exact
    )
    data["opened_after_position"] = positions[lo]
    data["group_first_position"] = positions[first_row]
    data["contents_lo"] = (lo - first_row).astype(np.int64, copy=False)
    data["contents_hi"] = (hi - first_row).astype(np.int64, copy=False)
    data["row_count"] = (hi - lo).astype(np.int64, copy=False)
    durations = None
    if any(a.needs_durations for a in params.aggregates):
        durations = window_durations(raw, params)
    for aggregate in params.aggregates:
        data[aggregate.name] = aggregate.compute(inputs, lo, hi, durations=durations)
    return data


def window_durations(raw: dict[str, Any], params: FieldDimensionParams) -> np.ndarray:
    """Each window's duration for RATE: ``window_end - window_start`` in seconds for a
    timestamp field, in the field's unit otherwise; NaN for windows without an end."""
    start = np.asarray(raw["window_start"], dtype=params.coordinate_dtype)
    if raw["window_end"] is None:
        return np.full(len(start), np.nan)
    end, valid = _values_and_valid(raw["window_end"], params.coordinate_dtype)
    durations = np.where(valid, (end - start).astype(np.float64), np.nan)  # subtract exactly first
    if params.field_kind == "timestamp":
        durations = durations / 1e9
    return durations


def _input_columns(params: FieldDimensionParams) -> list[str]:
    return list(dict.fromkeys(c for a in params.aggregates for c in a.columns))


def group_windows(
    group_df: pd.DataFrame,
    params: FieldDimensionParams,
    *,
    position_column: str = ARRIVAL_POSITION,
    horizon: Any = None,
) -> pd.DataFrame:
    """Every window of ONE group and each moment it may emit, with its aggregates.

    ``group_df`` holds all rows of one group (any order) and a column
    ``position_column`` with each row's global arrival position; the field must already
    have passed :func:`check_arrival_order`. ``horizon`` is the largest field value of
    the whole input: it bounds the intermediate points generated and is required when
    ``emit_every`` is set without ``size``.

    One row per emission candidate, columns :data:`CANDIDATE_COLUMNS` after the group
    columns, then the aggregates. Bounds and thresholds are coordinates (the field's
    units; integer nanoseconds for timestamps):

    * ``emit_kind`` 'close' (emits when a tuple reaches ``emit_threshold`` =
      ``window_end``; a drain candidate when no tuple does; ``emit_threshold`` NULL
      without ``size``) or 'intermediate' (``emit_threshold`` is the point);
    * ``opened_after_position``: arrival position of the opening tuple; an emission
      happens strictly after it;
    * ``group_first_position``: the group's first arrival position (for ordering);
    * ``contents_lo``/``contents_hi``: the window's contents at that emission, as the
      range of the group's rows in arrival order; ``row_count`` its length.

    Which candidates are emitted, and when, is decided by :func:`resolve_emissions`.
    """
    for column in (position_column, params.field, *params.group_by, *_input_columns(params)):
        if column not in group_df.columns:
            raise InvalidParameterError(
                "group_windows", "group_df", f"a frame with a column '{column}'",
                ", ".join(map(str, group_df.columns)), model=params.model,
            )
    rows = group_df.sort_values(position_column, kind="stable")
    n = len(rows)
    if params.group_by and n:
        n_groups = len(rows[list(params.group_by)].drop_duplicates())
        if n_groups > 1:
            raise InvalidParameterError(
                "group_windows", "group_df", "the rows of exactly one group",
                f"{n_groups} groups", model=params.model,
            )
    if params.emit_every is not None and params.size is None and horizon is None and n:
        raise InvalidParameterError(
            "group_windows", "horizon",
            "the largest field value of the input when emit_every is set without size",
            horizon, model=params.model,
        )
    u = field_coordinates(rows[params.field], params)
    positions = rows[position_column].to_numpy(dtype=np.int64)
    group_starts = np.array([0, n] if n else [0], dtype=np.int64)
    horizon_c = None if horizon is None else _horizon_coordinate(horizon, params)

    def search(x: np.ndarray, _: np.ndarray) -> np.ndarray:
        return np.searchsorted(u, x, side="left")

    raw = window_candidates(u, group_starts, params, search, horizon_c)
    first = np.zeros(1 if n else 0, dtype=np.intp)
    group_values = {c: _take(_array(rows[c]), first) for c in params.group_by}
    inputs = {c: _array(rows[c]) for c in _input_columns(params)}
    return _frame(_candidate_columns(raw, group_values, inputs, positions, group_starts, params))


# --------------------------------------------------------------------------------------
# (d) Emission times


def _emission_times(
    columns: Columns, values: np.ndarray, positions: np.ndarray | None, drain: bool
) -> tuple[np.ndarray, Columns]:
    """(indices of the candidates emitted, their emit_kind codes, emitted_at and
    emitted_position as columns aligned with the candidates)."""
    n = len(values)
    dtype = values.dtype if n else np.dtype(np.float64)
    threshold, has_threshold = _values_and_valid(columns["emit_threshold"], dtype)
    end, has_end = _values_and_valid(columns["window_end"], dtype)
    kind = _kind_codes(columns["emit_kind"])
    is_close = kind == _CLOSE
    after = np.asarray(columns["opened_after_position"], dtype=np.int64)
    if positions is None:
        positions = np.arange(n, dtype=np.int64)
        first_after = after + 1
    else:
        first_after = np.searchsorted(positions, after, side="right")

    emitter = np.maximum(sorted_search(values, threshold), first_after)
    emitter[~has_threshold] = n
    reached = emitter < n
    at = np.minimum(emitter, max(n - 1, 0))
    emitted_value = values[at] if n else np.zeros(len(at), dtype=dtype)
    still_open = ~has_end | (emitted_value < end)
    emitted = reached & (is_close | still_open)
    drained = is_close & ~reached & bool(drain)
    keep = np.flatnonzero(emitted | drained)
    emitted_position = positions[at] if n else np.zeros(len(at), dtype=np.int64)
    return keep, {
        "emit_kind": np.where(drained, _DRAIN, kind).astype(np.int8),
        "emitted_at": _nullable_coordinates(emitted_value, emitted, dtype.kind in "iu"),
        "emitted_position": pd.arrays.IntegerArray(emitted_position, ~emitted),
    }


def _resolve(
    columns: Columns, values: np.ndarray, positions: np.ndarray | None, drain: bool
) -> Columns:
    keep, times = _emission_times(columns, values, positions, drain)
    return {c: _take(a, keep) for c, a in {**columns, **times}.items()}


def resolve_emissions(
    candidates: pd.DataFrame,
    global_values: Any,
    global_positions: Any = None,
    *,
    drain: bool = False,
) -> pd.DataFrame:
    """Decide which candidates are emitted and by which tuple (as-of search).

    ``global_values`` are the field coordinates of the whole input in arrival order
    (non-decreasing; see :func:`field_coordinates`) and ``global_positions`` their
    arrival positions (default 0, 1, ...). A candidate is emitted by the first tuple
    arriving after ``opened_after_position`` whose value reaches ``emit_threshold``; an
    intermediate only if that tuple's value is still below ``window_end`` (else the
    window closes on that tuple first). Unreached closes become drains when ``drain``
    and are dropped otherwise; unreached intermediates are dropped. Adds ``emitted_at``
    (coordinates, NULL for drains) and ``emitted_position``; 'close' becomes 'drain'
    where drained.
    """
    positions = None if global_positions is None else np.asarray(global_positions, np.int64)
    columns = {c: _array(candidates[c]) for c in candidates.columns}
    return _frame(_resolve(columns, np.asarray(global_values), positions, drain))


# --------------------------------------------------------------------------------------
# (e) Order and output


def _to_field_units(
    values: np.ndarray, valid: np.ndarray | None, params: FieldDimensionParams, *,
    bound: bool,
) -> Any:
    """Coordinates back to the field's type (window bounds keep integers if integral)."""
    if params.field_kind == "timestamp":
        stamps = values.astype(np.int64).view("M8[ns]")
        if valid is not None:
            stamps = np.where(valid, stamps, np.datetime64("NaT", "ns"))
        index = pd.DatetimeIndex(stamps)
        tz = getattr(params.field_dtype, "tz", None)
        if tz is not None:
            index = index.tz_localize("UTC").tz_convert(tz)
        return index.array
    integral = params.integer_bounds if bound else params.field_kind == "int"
    if integral:
        ints = values if values.dtype.kind in "iu" else np.rint(values)
        ints = ints.astype(np.int64, copy=False)
        if valid is None:
            return ints
        return pd.arrays.IntegerArray(ints, ~valid)
    floats = values.astype(np.float64, copy=False)
    return floats if valid is None else np.where(valid, floats, np.nan)


def _order(
    columns: Columns,
    params: FieldDimensionParams,
    group_values: Columns | None = None,
    *,
    presorted: bool = False,
    rows: np.ndarray | None = None,
) -> Columns:
    """The output columns in emission order.

    ``rows`` picks the emitted rows out of ``columns`` (all rows when None), so that
    every column is gathered once. ``presorted``: the rows come in (group's first
    arrival, window start, point) order, as :func:`window_candidates` makes them, so
    two sort keys are enough.
    """

    def pick(column: Any) -> Any:
        return column if rows is None else _take(column, rows)

    dtype = params.coordinate_dtype
    phase = _kind_codes(pick(columns["emit_kind"]))
    position, has_position = _values_and_valid(pick(columns["emitted_position"]), np.int64)
    start = np.asarray(pick(columns["window_start"]), dtype=dtype)
    # Drains carry the largest position; 3 * position + phase stays well inside int64.
    position = np.where(has_position, position, np.iinfo(np.int64).max // 4)
    if presorted:
        order = np.lexsort((start, 3 * position + phase))
    else:
        first = np.asarray(pick(columns["group_first_position"]), dtype=np.int64)
        point, _ = _values_and_valid(pick(columns["emit_threshold"]), dtype)
        order = np.lexsort((point, first, start, 3 * position + phase))
    final = order if rows is None else rows[order]

    end, has_end = _values_and_valid(_take(columns["window_end"], final), dtype)
    at, has_at = _values_and_valid(_take(columns["emitted_at"], final), dtype)
    if group_values is None:
        data: Columns = {c: _take(columns[c], final) for c in params.group_by}
    else:
        gid = columns[_GROUP_NUMBER][final]
        data = {c: _take(group_values[c], gid) for c in params.group_by}
    data["window_start"] = _to_field_units(start[order], None, params, bound=True)
    data["window_end"] = _to_field_units(end, has_end, params, bound=True)
    data["emit_kind"] = _kind_names(phase[order])
    data["emitted_at"] = _to_field_units(at, has_at, params, bound=False)
    data["emit_seq"] = np.arange(len(order), dtype=np.int64)
    data["row_count"] = np.asarray(columns["row_count"], dtype=np.int64)[final]
    for aggregate in params.aggregates:
        data[aggregate.name] = _take(columns[aggregate.name], final)
    return data


def order_emissions(emissions: pd.DataFrame, params: FieldDimensionParams) -> pd.DataFrame:
    """Number the emissions in emission order and shape the public output.

    Order: emitting tuple's arrival position; on one tuple closes before intermediates;
    then window start, the group's first arrival position, the point. Drains last, by
    window start and group's first arrival. Returns the group columns, window_start,
    window_end, emit_kind, emitted_at, emit_seq (0-based), row_count and the aggregates,
    in the field's units, sorted by emit_seq.
    """
    columns = {c: _array(emissions[c]) for c in emissions.columns}
    return _frame(_order(columns, params), list(params.output_columns))


# --------------------------------------------------------------------------------------
# The whole pipeline on a pandas frame


def grouped_search(
    u: np.ndarray, gid: np.ndarray, order: np.ndarray, u_arrival: np.ndarray, n_groups: int
) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """``search(x, g)``: the first row of group g with value >= x, in rows grouped by
    group (``u``, ``gid``; ``order`` maps them to arrival positions)."""
    n = len(u)
    if u.dtype.kind == "i":
        low, high = int(u_arrival[0]), int(u_arrival[-1])
        span = high - low + 2
        if n_groups * span < 2**62:
            # One sorted key: group number, then the value (clipped to the data's range).
            keys = gid * span + (u - low)

            def search_values(x: np.ndarray, g: np.ndarray) -> np.ndarray:
                return sorted_search(keys, g * span + (np.clip(x, low, high + 1) - low))

            return search_values
    keys = gid * (n + 1) + order

    def search_arrivals(x: np.ndarray, g: np.ndarray) -> np.ndarray:
        # Rows of any group with value < x are exactly the arrival prefix [0, r(x))
        # (values never decrease), so the search within g is a search of r(x) among
        # g's arrival positions.
        return sorted_search(keys, g * (n + 1) + sorted_search(u_arrival, x))

    return search_arrivals


def field_dimension_aggregate(
    df: pd.DataFrame,
    *,
    field: str,
    size: Any = None,
    advance: Any = None,
    offset: Any = 0,
    group_by: Sequence[str] | str = (),
    opening: str = "advance",
    optional_windows: str = "single",
    emit_every: Any = None,
    aggregates: Mapping[str, Any],
    drain: bool = False,
    seq: str | None = None,
    model: str | None = None,
) -> pd.DataFrame:
    """What StreamBase's Aggregate operator with a field dimension emits on ``df``.

    ``df`` is replayed in row order, or in ``seq`` order (stable) when ``seq`` names an
    arrival-order column. ``field`` is an int, float or timestamp column (timestamps in
    seconds: ``size``, ``advance``, ``offset`` and ``emit_every`` are then seconds or
    timedeltas). ``size``: close-and-emit after (None: windows never close);
    ``advance`` (<= size, default size); ``offset`` of the window grid; ``group_by``:
    separate windows per group; ``opening``: 'advance' (open windows on the grid) or
    'none' (a window opens at the tuple's own value whenever its group has none);
    ``optional_windows``: 'single' or 'all' windows on the first tuple and after a
    gap; ``emit_every``: intermediate emission period; ``aggregates``:
    ``{output_name: "sum(volume)" | ("sum", "volume")}``; ``drain``: emit the windows
    still open at the end (emit_kind 'drain'); ``model`` names the model in errors.

    Returns the group columns, ``window_start``, ``window_end`` (NULL without size),
    ``emit_kind`` ('close' | 'intermediate' | 'drain'), ``emitted_at`` (field value of
    the emitting tuple; NULL for drains), ``emit_seq`` (0-based emission order),
    ``row_count`` and the aggregates, sorted by ``emit_seq``. Raises
    :class:`InvalidParameterError`, :class:`OutOfOrderError`, :class:`NullFieldError`.
    """
    params = validate_parameters(
        df.dtypes,
        field=field,
        size=size,
        advance=advance,
        offset=offset,
        group_by=group_by,
        opening=opening,
        optional_windows=optional_windows,
        emit_every=emit_every,
        aggregates=aggregates,
        drain=drain,
        seq=seq,
        model=model,
    )
    group_by = params.group_by
    needed = list(dict.fromkeys([params.field, *group_by, *_input_columns(params)]))
    frame = df[needed]
    seqs = None
    if params.seq is not None:
        seq_values = df[params.seq]
        missing = np.asarray(seq_values.isna(), dtype=bool)
        if missing.any():
            row = int(np.argmax(missing))
            raise NullFieldError(
                field=params.seq,
                position=row,
                group={c: df[c].iloc[row] for c in group_by},
                model=params.model,
            )
        arrival = np.argsort(seq_values.to_numpy(), kind="stable")
        frame = frame.take(arrival)
        seqs = seq_values.to_numpy()[arrival]
    frame = frame.reset_index(drop=True)
    check_arrival_order(
        frame[params.field],
        None,
        {c: frame[c] for c in group_by},
        field=params.field,
        seqs=seqs,
        model=params.model,
    )
    u_arrival = field_coordinates(frame[params.field], params)
    n = len(frame)
    codes, n_groups = group_codes(frame, group_by)
    inputs = {c: _array(frame[c]) for c in _input_columns(params)}
    if n_groups > 1:
        order = stable_group_order(codes, n_groups)
        gid = codes[order]
        u = u_arrival[order]
        group_starts = np.searchsorted(gid, np.arange(n_groups + 1), side="left")
        inputs = {c: _take(a, order) for c, a in inputs.items()}
        search = grouped_search(u, gid, order, u_arrival, n_groups)
        positions = order.astype(np.int64)
    else:
        u, positions = u_arrival, np.arange(n, dtype=np.int64)
        group_starts = np.array([0, n] if n else [0], dtype=np.int64)

        def search(x: np.ndarray, g: np.ndarray) -> np.ndarray:
            return np.searchsorted(u, x, side="left")

    first_rows = positions[group_starts[:-1]]
    group_values = {c: _take(_array(frame[c]), first_rows) for c in group_by}
    horizon = u_arrival[-1] if n else None
    raw = window_candidates(u, group_starts, params, search, horizon)
    candidates = _candidate_columns(
        raw, group_values, inputs, positions, group_starts, params, group_numbers=True
    )
    keep, times = _emission_times(candidates, u_arrival, None, params.drain)
    output = _order({**candidates, **times}, params, group_values, presorted=True, rows=keep)
    return _frame(output, list(params.output_columns))
