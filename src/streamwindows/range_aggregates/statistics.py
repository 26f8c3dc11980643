"""Range kernels of VAR, STDDEV, COV, CORR and MEDIAN, and what they are built on.

Variance and co-moments are computed without cancellation: per range, by merging the
(count, mean, co-moment) states of power-of-two blocks with Chan's pairwise formula
(binary lifting: one level of blocks alive at a time, O(n log L) for the longest range L),
so values around 1e9 with a spread of 1 keep full precision.

:func:`range_moments` computes those states for every range; :func:`gather_ranges`
lays the rows of many ranges end to end in bounded chunks, for MEDIAN's sorts.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from streamwindows.range_aggregates.columns import ColumnData, as_array, numeric


def _floats(array: ColumnData) -> tuple[np.ndarray, np.ndarray]:
    """(values as float64 with NULLs as 0, non-NULL mask)."""
    values, nulls = numeric(array, 0)
    valid = np.ones(len(values), dtype=bool) if nulls is None else ~nulls
    return values.astype(np.float64, copy=False), valid


def _merge_moments(a: tuple[np.ndarray, ...], b: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """Chan's pairwise merge of (n, mean_x, mean_y, c_xx, c_yy, c_xy) states."""
    na, mxa, mya, cxxa, cyya, cxya = a
    nb, mxb, myb, cxxb, cyyb, cxyb = b
    n = na + nb
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(n > 0, nb / n, 0.0)
    dx = mxb - mxa
    dy = myb - mya
    weight = na * share  # na * nb / n
    return (
        n,
        mxa + dx * share,
        mya + dy * share,
        cxxa + cxxb + dx * dx * weight,
        cyya + cyyb + dy * dy * weight,
        cxya + cxyb + dx * dy * weight,
    )


def range_moments(
    x: np.ndarray, y: np.ndarray, valid: np.ndarray, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, ...]:
    """(n, mean_x, mean_y, c_xx, c_yy, c_xy) of the valid rows of every range ``[lo, hi)``.

    ``c_xx`` is the sum of squared deviations from the range's mean, ``c_xy`` the sum of
    the products of the deviations. Binary lifting: a range is the concatenation of
    blocks of lengths 1, 2, 4, ... (the bits of its length, smallest first); the states
    of all blocks of one length are built from those of half the length and merged into
    the ranges that need them, so only one level is alive at a time and no sum of
    squares is ever formed (no cancellation with large offsets).
    """
    m = len(x)
    # Shifting by one of the values changes no deviation and keeps the stored means small
    # (each merge rounds the mean to the precision of its magnitude).
    if valid.any():
        first = int(np.argmax(valid))
        x = x - x[first]
        y = y - y[first]
    zeros = np.zeros(m, dtype=np.float64)
    block = (
        valid.astype(np.float64),
        np.where(valid, x, 0.0),
        np.where(valid, y, 0.0),
        zeros,
        zeros,
        zeros,
    )
    r = len(lo)
    acc = tuple(np.zeros(r, dtype=np.float64) for _ in range(6))
    pos = lo.astype(np.intp, copy=True)
    length = (hi - lo).astype(np.intp)
    longest = int(length.max()) if r else 0
    width = 1
    while width <= longest:
        take = np.flatnonzero(length & width)
        if len(take):
            at = pos[take]
            merged = _merge_moments(tuple(a[take] for a in acc), tuple(b[at] for b in block))
            for a, value in zip(acc, merged, strict=True):
                a[take] = value
            pos[take] += width
        size = m - 2 * width + 1
        if 2 * width > longest or size <= 0:
            break
        block = _merge_moments(
            tuple(b[:size] for b in block), tuple(b[width : width + size] for b in block)
        )
        width *= 2
    return acc


def kernel_variance(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    x, valid = _floats(as_array(columns[0]))
    n, _, _, cxx, _, _ = range_moments(x, x, valid, lo, hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = cxx / (n - 1)
    result[n < 2] = np.nan
    return result


def kernel_stddev(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.sqrt(kernel_variance(columns, lo, hi))


def _pair_moments(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, ...]:
    x, valid_x = _floats(as_array(columns[0]))
    y, valid_y = _floats(as_array(columns[1]))
    return range_moments(x, y, valid_x & valid_y, lo, hi)


def kernel_covariance(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    n, _, _, _, _, cxy = _pair_moments(columns, lo, hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = cxy / (n - 1)
    result[n < 2] = np.nan
    return result


def kernel_correlation(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    n, _, _, cxx, cyy, cxy = _pair_moments(columns, lo, hi)
    defined = (n >= 2) & (cxx > 0) & (cyy > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = cxy / np.sqrt(cxx * cyy)
    result[~defined] = np.nan
    return result


_GATHER_LIMIT = 1 << 22  # rows gathered at once by the kernels that need each range's rows


def gather_ranges(lo: np.ndarray, hi: np.ndarray, limit: int = _GATHER_LIMIT):
    """Yield ``(ranges, offsets, lengths, rows)`` for chunks of the ranges.

    ``ranges`` is a slice of the ranges, ``rows`` the row indices of those ranges laid end
    to end, ``offsets``/``lengths`` where each range sits in ``rows``. A chunk gathers at
    most ``limit`` rows (or one range, if longer), bounding the memory.
    """
    lengths = (hi - lo).astype(np.intp)
    ends = np.cumsum(lengths)
    start, r = 0, len(lo)
    while start < r:
        base = ends[start - 1] if start else 0
        stop = max(start + 1, int(np.searchsorted(ends, base + limit, side="right")))
        chunk = lengths[start:stop]
        offsets = np.cumsum(chunk) - chunk
        total = int(chunk.sum())
        rows = np.arange(total, dtype=np.intp) - np.repeat(offsets - lo[start:stop], chunk)
        yield slice(start, stop), offsets, chunk, rows
        start = stop


def kernel_median(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    values, valid = _floats(as_array(columns[0]))
    # Ranges over the non-NULL values only: the prefix count maps the bounds.
    prefix = np.zeros(len(values) + 1, dtype=np.intp)
    np.cumsum(valid, out=prefix[1:])
    present = values[valid]
    plo, phi = prefix[lo], prefix[hi]
    result = np.full(len(lo), np.nan)
    for ranges, offsets, lengths, rows in gather_ranges(plo, phi):
        if not len(rows):
            continue
        gathered = present[rows]
        owner = np.repeat(np.arange(len(lengths)), lengths)
        ordered = gathered[np.lexsort((gathered, owner))]
        nonempty = lengths > 0
        low = ordered[(offsets + (lengths - 1) // 2)[nonempty]]
        high = ordered[(offsets + lengths // 2)[nonempty]]
        chunk = np.full(len(lengths), np.nan)
        chunk[nonempty] = 0.5 * low + 0.5 * high  # Spark's percentile interpolation at 0.5
        result[ranges] = chunk
    return result
