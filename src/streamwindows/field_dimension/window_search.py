"""Every window of every group and each point at which it may emit, as numpy arrays.

:func:`window_candidates` works on the coordinates of rows laid out group after group
(one group, or all of them at once); :func:`grouped_search` is the search it needs (a
group's first row with value >= x) and :func:`sorted_search` a fast
``np.searchsorted``.

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
* A window's intermediate points are those after its opening value v0 (``p > v0``).
  The contents at a point p are g's tuples with value < p (the opening tuple first),
  ``hi`` = the first index with value >= p, computed per group. When each candidate is
  emitted is decided in :mod:`streamwindows.field_dimension.emissions`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from streamwindows.field_dimension.params import FieldDimensionParams


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
