"""Aggregates over contiguous row ranges, computed for many ranges at once.

Every window the engine builds is a contiguous range ``[lo, hi)`` of one group's rows
in arrival order (the dimension field never decreases, so a value range is an index
range). An aggregate is therefore a function of ``(columns, lo, hi)`` that answers for
all ranges in one vectorized pass: prefix sums for exact integer sums and counts,
``ufunc.reduceat`` over the ranges sorted by ``lo`` for float sums and for min/max,
plain gathers for FIRST/LAST/NTH, sorts of the gathered ranges (in bounded chunks) for
MEDIAN. No Python loop runs over rows or ranges, except in NEST and DISTINCTNEST, which
build one Python list per range.

NULL semantics are SQL's: SUM, AVG, MIN and MAX ignore NULLs and give NULL on a range
with no non-NULL value (or no row); COUNT(*) counts rows and COUNT(col) non-NULL values,
0 on an empty range; FIRST and LAST are the first and last row of the range in arrival
order, NULL values included as they are. NaN in a float column is NULL, as in pandas.

Result types are fixed by the input type, so a schema can be declared before any data
is seen (Spark needs that): COUNT -> int64; SUM of an integer or boolean column ->
nullable ``Int64`` (integer sums stay exact integers; int64 overflow wraps as in Spark's
non-ANSI mode), SUM of a float column -> float64; AVG -> float64; MIN, MAX, FIRST and
LAST keep the input type, made nullable (integers -> ``Int64``, booleans ->
``boolean``, floats -> float64, timestamps and other types unchanged).

The Odysseus set (docs/semantics.md, Odysseus section) is complete: besides the above, MEDIAN
(interpolated like Spark's ``median``: the mean of the two middle values of an even
count), STDDEV and VAR (sample, like Spark's ``stddev``/``variance``: NULL with fewer than
two non-NULL values), COV (``covar_samp``) and CORR (``corr``) of two columns over the rows
where both are non-NULL (NULL with fewer than two such rows; CORR also NULL when either
column is constant there, as Spark's division by zero gives NULL), NTH(col, n) (the n-th
row, 1-based, in arrival order, its value as it is, NULL included; NULL when the range has
fewer than n rows), RATE(*) / RATE(col) (COUNT divided by the window's duration, which the
window kind passes in: events per second for timestamp windows, per unit of the field
otherwise; NULL when the window kind knows no duration), NEST(col) (the values in arrival
order as a Python list, NULLs kept as None), DISTINCTNEST(col) (the distinct values in
order of first arrival, NULL kept once as None) and COMPLETENESS(col) (non-NULL count /
row count, NULL on an empty range; the Odysseus document words it the other way round,
which contradicts the name). MEDIAN, STDDEV, VAR, COV, CORR return float64, RATE and
COMPLETENESS float64, NTH the input type made nullable, NEST and DISTINCTNEST ``object``.

Variance and co-moments are computed without cancellation: per range, by merging the
(count, mean, co-moment) states of power-of-two blocks with Chan's pairwise formula
(binary lifting: one level of blocks alive at a time, O(n log L) for the longest range L),
so values around 1e9 with a spread of 1 keep full precision.

Adding a function is one :func:`register_aggregate` call with a kernel over ``(columns,
lo, hi)``. Literal arguments (``nth(price, 2)``) are passed to the kernel after ``hi``;
inputs that only the window kind knows (the window durations of RATE) are keyword
arguments named in :attr:`AggregateFunction.context`, given to :meth:`Aggregate.compute`.
Mergeable partial states will hang off :class:`AggregateFunction` the same way (a kernel
producing the state per range and a merge), keeping ranges the unit of work.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray
from pandas.api.types import (
    is_bool_dtype,
    is_float_dtype,
    is_integer_dtype,
    is_numeric_dtype,
    pandas_dtype,
)

from streamwindows.errors import InvalidParameterError

__all__ = [
    "AGGREGATE_FUNCTIONS",
    "Aggregate",
    "AggregateFunction",
    "ColumnData",
    "gather_ranges",
    "parse_aggregates",
    "range_moments",
    "register_aggregate",
]

ColumnData = np.ndarray | ExtensionArray


# --------------------------------------------------------------------------------------
# Column preparation


def _as_array(column: Any) -> ColumnData:
    if isinstance(column, (pd.Series, pd.Index)):
        column = column.array
    if isinstance(column, pd.arrays.NumpyExtensionArray):
        return np.asarray(column)  # to_numpy() would scan object columns for NULLs
    if isinstance(column, (np.ndarray, ExtensionArray)):
        return column
    return np.asarray(column)


def _nulls(array: ColumnData) -> np.ndarray | None:
    mask = np.asarray(pd.isna(array), dtype=bool)
    return mask if mask.any() else None


def _is_intlike(dtype: Any) -> bool:
    return is_bool_dtype(dtype) or is_integer_dtype(dtype)


def _numeric(array: ColumnData, fill: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(values as int64 or float64 with NULLs replaced by ``fill``, NULL mask or None).

    ``fill`` must be an int for integer and boolean columns.
    """
    nulls = _nulls(array)
    if _is_intlike(array.dtype):
        if isinstance(array, np.ndarray):
            return array.astype(np.int64, copy=False), None
        return np.asarray(array.to_numpy(dtype=np.int64, na_value=int(fill))), nulls
    if isinstance(array, np.ndarray):
        values = array.astype(np.float64, copy=False)
        if nulls is not None:
            values = np.where(nulls, fill, values)
        return values, nulls
    return np.asarray(array.to_numpy(dtype=np.float64, na_value=fill)), nulls


def _nullable(array: ColumnData) -> ColumnData:
    """The column in a type that can hold NULL (numpy ints/bools become masked arrays)."""
    if isinstance(array, np.ndarray):
        if array.dtype.kind == "b":
            return pd.arrays.BooleanArray(array, np.zeros(len(array), dtype=bool))
        if array.dtype.kind in "iu":
            values = array.astype(np.int64, copy=False)
            return pd.arrays.IntegerArray(values, np.zeros(len(array), dtype=bool))
        if array.dtype.kind == "f":
            return array.astype(np.float64, copy=False)
        return array
    if _is_intlike(array.dtype) and not is_bool_dtype(array.dtype):
        return pd.array(array, dtype=pd.Int64Dtype())
    if is_bool_dtype(array.dtype):
        return pd.array(array, dtype=pd.BooleanDtype())
    if is_float_dtype(array.dtype):
        return np.asarray(array.to_numpy(dtype=np.float64, na_value=np.nan))
    return array


def nullable_dtype(dtype: Any) -> Any:
    """The result type of MIN/MAX/FIRST/LAST over a column of type ``dtype``."""
    if is_bool_dtype(dtype):
        return pd.BooleanDtype()
    if is_integer_dtype(dtype):
        return pd.Int64Dtype()
    if is_float_dtype(dtype):
        return np.dtype(np.float64)
    return dtype


# --------------------------------------------------------------------------------------
# Range kernels (vectorized over all ranges)


def _counts(nulls: np.ndarray | None, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Number of non-NULL rows in each range (prefix sums; exact)."""
    if nulls is None:
        return (hi - lo).astype(np.int64)
    prefix = np.zeros(len(nulls) + 1, dtype=np.int64)
    np.cumsum(~nulls, out=prefix[1:])
    return prefix[hi] - prefix[lo]


def _prefix_sums(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    prefix = np.zeros(len(values) + 1, dtype=values.dtype)
    np.cumsum(values, out=prefix[1:])
    return prefix[hi] - prefix[lo]


def range_reduce(
    ufunc: np.ufunc, values: np.ndarray, lo: np.ndarray, hi: np.ndarray, fill: Any
) -> np.ndarray:
    """``ufunc.reduce(values[lo:hi])`` for every range at once; ``fill`` for empty ranges.

    Uses ``ufunc.reduceat`` on the interleaved index pairs ``lo0, hi0, lo1, hi1, ...``
    of the ranges sorted by ``lo``: the pair results at even positions are the range
    results, and sorting bounds the work spent on the odd (in-between) segments by the
    column length, so the cost is O(n + total range length).
    """
    out = np.full(len(lo), fill, dtype=values.dtype)
    nonempty = hi > lo
    if not nonempty.any():
        return out
    lo_ne, hi_ne = lo[nonempty], hi[nonempty]
    order = np.argsort(lo_ne, kind="stable")
    pairs = np.empty(2 * len(order), dtype=np.intp)
    pairs[0::2] = lo_ne[order]
    pairs[1::2] = hi_ne[order]
    padded = np.concatenate([values, np.array([fill], dtype=values.dtype)])
    reduced = ufunc.reduceat(padded, pairs)[0::2]
    result = np.empty_like(reduced)
    result[order] = reduced
    out[nonempty] = result
    return out


def _kernel_count(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    if not columns:
        return (hi - lo).astype(np.int64)
    return _counts(_nulls(columns[0]), lo, hi)


def _kernel_sum(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    column = columns[0]
    values, nulls = _numeric(column, 0)
    empty = _counts(nulls, lo, hi) == 0
    if values.dtype == np.int64:
        return pd.arrays.IntegerArray(_prefix_sums(values, lo, hi), empty)
    # Float prefix sums would cancel catastrophically; reduceat adds each range afresh.
    sums = range_reduce(np.add, values, lo, hi, 0.0)
    sums[empty] = np.nan
    return sums


def _kernel_avg(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    values, nulls = _numeric(columns[0], 0)
    counts = _counts(nulls, lo, hi)
    if values.dtype == np.int64:
        sums = _prefix_sums(values, lo, hi).astype(np.float64)
    else:
        sums = range_reduce(np.add, values, lo, hi, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums / counts
    means[counts == 0] = np.nan
    return means


def _extreme(
    columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray, *, largest: bool
) -> ColumnData:
    array = _as_array(columns[0])
    ufunc = np.maximum if largest else np.minimum
    if is_numeric_dtype(array.dtype):
        if _is_intlike(array.dtype):
            info = np.iinfo(np.int64)
            fill = info.min if largest else info.max
        else:
            fill = -np.inf if largest else np.inf
        values, nulls = _numeric(array, fill)
        result = range_reduce(ufunc, values, lo, hi, values.dtype.type(fill))
        empty = _counts(nulls, lo, hi) == 0
        if is_bool_dtype(array.dtype):
            return pd.arrays.BooleanArray(result.astype(bool), empty)
        if values.dtype == np.int64:
            return pd.arrays.IntegerArray(result, empty)
        result[empty] = np.nan
        return result
    # Timestamps, strings, ...: reduce the sorted codes, then map the codes back.
    codes, uniques = pd.factorize(array, sort=True, use_na_sentinel=True)
    codes = codes.astype(np.int64)
    if not largest:
        codes = np.where(codes < 0, len(uniques), codes)
    sentinel = -1 if largest else len(uniques)
    picked = range_reduce(ufunc, codes, lo, hi, np.int64(sentinel))
    picked[picked == len(uniques)] = -1
    return pd.api.extensions.take(_as_array(uniques), picked, allow_fill=True)


def _kernel_min(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _extreme(columns, lo, hi, largest=False)


def _kernel_max(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _extreme(columns, lo, hi, largest=True)


def _pick(columns: Sequence[ColumnData], rows: np.ndarray, present: np.ndarray) -> ColumnData:
    array = _nullable(_as_array(columns[0]))
    return pd.api.extensions.take(array, np.where(present, rows, -1), allow_fill=True)


def _kernel_first(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _pick(columns, lo, hi > lo)


def _kernel_last(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _pick(columns, hi - 1, hi > lo)


def _kernel_nth(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray, n: int) -> ColumnData:
    rows = lo + (n - 1)
    return _pick(columns, rows, rows < hi)


def _floats(array: ColumnData) -> tuple[np.ndarray, np.ndarray]:
    """(values as float64 with NULLs as 0, non-NULL mask)."""
    values, nulls = _numeric(array, 0)
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


def _kernel_variance(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    x, valid = _floats(_as_array(columns[0]))
    n, _, _, cxx, _, _ = range_moments(x, x, valid, lo, hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = cxx / (n - 1)
    result[n < 2] = np.nan
    return result


def _kernel_stddev(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.sqrt(_kernel_variance(columns, lo, hi))


def _pair_moments(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, ...]:
    x, valid_x = _floats(_as_array(columns[0]))
    y, valid_y = _floats(_as_array(columns[1]))
    return range_moments(x, y, valid_x & valid_y, lo, hi)


def _kernel_covariance(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    n, _, _, _, _, cxy = _pair_moments(columns, lo, hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = cxy / (n - 1)
    result[n < 2] = np.nan
    return result


def _kernel_correlation(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
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


def _kernel_median(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    values, valid = _floats(_as_array(columns[0]))
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


def _python_values(array: ColumnData) -> list[Any]:
    """The column as a list of Python values (timestamps as pandas Timestamps), NULL as None."""
    array = _as_array(array)
    if isinstance(array, np.ndarray) and array.dtype.kind in "biuf":
        values = array.tolist()
    else:
        if isinstance(array, np.ndarray) and array.dtype.kind in "mM":
            array = pd.array(array)
        values = np.asarray(array.astype(object), dtype=object).tolist()
    nulls = _nulls(array)
    if nulls is not None:
        for i in np.flatnonzero(nulls).tolist():
            values[i] = None
    return values


def _object_array(items: list[Any]) -> np.ndarray:
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def _kernel_nest(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    values = _python_values(columns[0])
    return _object_array([values[a:b] for a, b in zip(lo.tolist(), hi.tolist(), strict=True)])


def _kernel_distinct_nest(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    values = _python_values(columns[0])
    return _object_array(
        [list(dict.fromkeys(values[a:b])) for a, b in zip(lo.tolist(), hi.tolist(), strict=True)]
    )


def _kernel_completeness(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    rows = (hi - lo).astype(np.float64)
    present = _counts(_nulls(_as_array(columns[0])), lo, hi).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = present / rows
    result[rows == 0] = np.nan
    return result


def _kernel_rate(
    columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray, *, durations: np.ndarray
) -> np.ndarray:
    counts = _kernel_count(columns, lo, hi).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        result = counts / durations
    result[~(durations > 0)] = np.nan
    return result


# --------------------------------------------------------------------------------------
# Registry


def _any_dtype(dtype: Any) -> bool:
    return True


def _numeric_dtype(dtype: Any) -> bool:
    return is_numeric_dtype(dtype)


def _count_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(np.int64)


def _sum_dtype(dtypes: Sequence[Any]) -> Any:
    return pd.Int64Dtype() if _is_intlike(dtypes[0]) else np.dtype(np.float64)


def _avg_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(np.float64)


def _same_dtype(dtypes: Sequence[Any]) -> Any:
    return nullable_dtype(dtypes[0])


def _float_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(np.float64)


def _list_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(object)


@dataclass(frozen=True)
class AggregateFunction:
    """One aggregate function: how to call it and how to compute it over ranges.

    ``arguments`` lists the argument kinds in order: ``"column"`` (an input column),
    ``"column_or_star"`` (a column or ``*``, as in ``count(*)``), ``"positive_integer"``
    (a literal integer >= 1, as in ``nth(price, 2)``). ``kernel(columns, lo, hi,
    *literals, **context)`` receives the argument columns (``*`` passes none), the range
    bounds, the literal arguments in order and, as keywords, the window-kind inputs named
    in ``context`` (``"durations"``: each range's window duration as float64, NaN when
    unknown); it returns one value per range. ``result_dtype(input_dtypes)`` is the type it
    returns. ``accepts(dtype)`` says whether a column type is allowed, ``accepts_rule``
    says so in words for the error message.
    """

    name: str
    kernel: Callable[..., ColumnData]
    result_dtype: Callable[[Sequence[Any]], Any]
    arguments: tuple[str, ...] = ("column",)
    accepts: Callable[[Any], bool] = _any_dtype
    accepts_rule: str = "a column"
    description: str = ""
    context: tuple[str, ...] = ()


AGGREGATE_FUNCTIONS: dict[str, AggregateFunction] = {}


def register_aggregate(function: AggregateFunction, *, replace: bool = False) -> None:
    """Make ``function`` available to aggregate specs under its (lower-case) name."""
    key = function.name.lower()
    if key in AGGREGATE_FUNCTIONS and not replace:
        raise ValueError(f"aggregate function {key!r} is already registered")
    AGGREGATE_FUNCTIONS[key] = function


for _function in (
    AggregateFunction(
        "count", _kernel_count, _count_dtype, ("column_or_star",),
        description="COUNT(*) rows; COUNT(col) non-NULL values",
    ),
    AggregateFunction(
        "sum", _kernel_sum, _sum_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="sum of the non-NULL values",
    ),
    AggregateFunction(
        "avg", _kernel_avg, _avg_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="mean of the non-NULL values",
    ),
    AggregateFunction("min", _kernel_min, _same_dtype, description="smallest non-NULL value"),
    AggregateFunction("max", _kernel_max, _same_dtype, description="largest non-NULL value"),
    AggregateFunction("first", _kernel_first, _same_dtype, description="first row's value"),
    AggregateFunction("last", _kernel_last, _same_dtype, description="last row's value"),
    AggregateFunction(
        "nth", _kernel_nth, _same_dtype, ("column", "positive_integer"),
        description="n-th row's value (1-based, arrival order), NULL with fewer rows",
    ),
    AggregateFunction(
        "median", _kernel_median, _float_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="interpolated median of the non-NULL values",
    ),
    AggregateFunction(
        "var", _kernel_variance, _float_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="sample variance (NULL below 2 values)",
    ),
    AggregateFunction(
        "stddev", _kernel_stddev, _float_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="sample standard deviation (NULL below 2 values)",
    ),
    AggregateFunction(
        "cov", _kernel_covariance, _float_dtype, ("column", "column"), accepts=_numeric_dtype,
        accepts_rule="numeric columns", description="sample covariance of the complete pairs",
    ),
    AggregateFunction(
        "corr", _kernel_correlation, _float_dtype, ("column", "column"), accepts=_numeric_dtype,
        accepts_rule="numeric columns", description="Pearson correlation of the complete pairs",
    ),
    AggregateFunction(
        "rate", _kernel_rate, _float_dtype, ("column_or_star",), context=("durations",),
        description="COUNT per unit of window duration (per second for timestamps)",
    ),
    AggregateFunction("nest", _kernel_nest, _list_dtype, description="list of the values, NULLs kept"),
    AggregateFunction(
        "distinctnest", _kernel_distinct_nest, _list_dtype,
        description="list of the distinct values in first-arrival order",
    ),
    AggregateFunction(
        "completeness", _kernel_completeness, _float_dtype,
        description="non-NULL count / row count",
    ),
):
    register_aggregate(_function)


# --------------------------------------------------------------------------------------
# Bound aggregates and spec parsing


@dataclass(frozen=True)
class Aggregate:
    """An aggregate bound to its output name and input columns.

    ``dtype`` is the output type given the input column types (None when those were not
    known at parse time).
    """

    name: str
    function: AggregateFunction
    columns: tuple[str, ...]
    dtype: Any = None
    literals: tuple[Any, ...] = ()

    @property
    def spec(self) -> str:
        """The normalized spec, e.g. ``sum(volume)``, ``count(*)`` or ``nth(price, 2)``."""
        columns, literals = iter(self.columns), iter(self.literals)
        args = []
        for kind in self.function.arguments:
            if kind == "positive_integer":
                args.append(str(next(literals)))
            else:
                args.append(next(columns, "*"))
        return f"{self.function.name}({', '.join(args)})"

    def result_dtype(self, input_dtypes: Mapping[str, Any]) -> Any:
        """The output type for the given input column types."""
        return self.function.result_dtype([input_dtypes[c] for c in self.columns])

    @property
    def needs_durations(self) -> bool:
        """Whether :meth:`compute` needs the window durations (RATE)."""
        return "durations" in self.function.context

    def compute(
        self,
        columns: Mapping[str, Any],
        lo: np.ndarray,
        hi: np.ndarray,
        *,
        durations: Any = None,
    ) -> ColumnData:
        """The aggregate over rows ``[lo[i], hi[i])`` of ``columns``, for every i.

        ``durations`` (one float per range or a scalar; NaN when unknown) is each window's
        duration in the rate unit: seconds for timestamp windows, the field's unit
        otherwise. Only RATE uses it; a window kind that has durations always passes them.
        """
        lo = np.asarray(lo, dtype=np.intp)
        hi = np.asarray(hi, dtype=np.intp)
        arrays = [_as_array(columns[c]) for c in self.columns]
        context: dict[str, Any] = {}
        if self.needs_durations:
            if durations is None:
                raise ValueError(f"{self.spec} needs the window durations (compute(..., durations=...))")
            context["durations"] = np.broadcast_to(np.asarray(durations, dtype=np.float64), lo.shape)
        return self.function.kernel(arrays, lo, hi, *self.literals, **context)


_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$", re.DOTALL)
_SPEC_RULE = "an aggregate spec like 'sum(volume)', 'count(*)' or ('sum', 'volume')"


def _split_arguments(text: str) -> list[str] | None:
    """Split ``a, `b, c`, *`` on top-level commas; backticks quote a column name."""
    if not text.strip():
        return []
    arguments, current, quoted = [], [], False
    for char in text:
        if char == "`":
            quoted = not quoted
        if char == "," and not quoted:
            arguments.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if quoted:
        return None
    arguments.append("".join(current).strip())
    if any(not a for a in arguments):
        return None
    return [a[1:-1] if len(a) >= 2 and a[0] == a[-1] == "`" else a for a in arguments]


def _parse_one(spec: Any) -> tuple[str, list[str]] | None:
    if isinstance(spec, str):
        match = _SPEC.match(spec)
        if match is None:
            return None
        arguments = _split_arguments(match.group(2))
        return None if arguments is None else (match.group(1), arguments)
    if (
        isinstance(spec, (tuple, list))
        and spec
        and isinstance(spec[0], str)
        and all(isinstance(s, (str, int)) and not isinstance(s, bool) for s in spec[1:])
    ):
        return spec[0].strip(), [s.strip() if isinstance(s, str) else str(s) for s in spec[1:]]
    return None


_CONTEXT_WORDS = {"durations": "window durations"}


def parse_aggregates(
    aggregates: Any,
    available_columns: Mapping[str, Any] | Sequence[str],
    function_name: str,
    *,
    model: str | None = None,
    parameter: str = "aggregates",
    context: Collection[str] | None = None,
) -> list[Aggregate]:
    """Parse ``{output_name: spec}`` into :class:`Aggregate` objects, in the given order.

    A spec is a string such as ``"sum(volume)"``, ``"COUNT(*)"``, ``"avg(`low temp`)"``,
    ``"corr(x, y)"`` or ``"nth(price, 2)"`` (function names are case-insensitive,
    backticks quote a column name) or a tuple ``("sum", "volume")`` / ``("nth", "price",
    2)``. ``available_columns`` maps the input's column names to their types (the types
    give each aggregate's output type and are checked against what the function
    accepts) or just lists the names. ``context`` lists the window-kind inputs the caller
    can pass to :meth:`Aggregate.compute` (``"durations"``); None skips that check.
    Raises :class:`InvalidParameterError` naming ``function_name``, the spec and the rule
    it breaks, before any data is read.
    """

    def fail(rule: str, value: Any, note: str = "") -> InvalidParameterError:
        return InvalidParameterError(
            function_name, parameter, rule, value, note=note, model=model
        )

    if not isinstance(aggregates, Mapping):
        raise fail("a mapping of output column name to aggregate spec", aggregates)
    if isinstance(available_columns, Mapping):
        dtypes: Mapping[str, Any] | None = {
            name: pandas_dtype(dtype) for name, dtype in available_columns.items()
        }
        names = list(available_columns)
    else:
        dtypes = None
        names = list(available_columns)
    known = ", ".join(sorted(AGGREGATE_FUNCTIONS))
    parsed = []
    for output, spec in aggregates.items():
        if not isinstance(output, str) or not output:
            raise fail("keyed by non-empty output column names", output)
        where = f" for output '{output}'"
        shown = spec if isinstance(spec, str) else repr(spec)
        call = _parse_one(spec)
        if call is None:
            raise fail(_SPEC_RULE, shown, where)
        function_key, arguments = call
        function = AGGREGATE_FUNCTIONS.get(function_key.lower())
        if function is None:
            raise fail(f"a known aggregate function ({known})", shown, where)
        if len(arguments) != len(function.arguments):
            wanted = ", ".join(function.arguments)
            raise fail(
                f"a call of {function.name}() with {len(function.arguments)} "
                f"argument(s) ({wanted})",
                shown,
                where,
            )
        columns, literals = [], []
        for number, (kind, argument) in enumerate(zip(function.arguments, arguments, strict=True), 1):
            if kind == "positive_integer":
                if not re.fullmatch(r"[0-9]+", argument) or int(argument) < 1:
                    raise fail(
                        f"a call of {function.name}() with a positive integer (1-based) as "
                        f"argument {number}",
                        argument,
                        f" in {shown}{where}",
                    )
                literals.append(int(argument))
                continue
            if argument == "*":
                if kind != "column_or_star":
                    raise fail(
                        f"a call of {function.name}() on a column ('*' is only allowed "
                        "in count(*))",
                        shown,
                        where,
                    )
                continue
            if argument not in names:
                raise fail(
                    f"columns of the input (available: {', '.join(map(str, names))})",
                    argument,
                    f" in {shown}{where}",
                )
            if dtypes is not None and not function.accepts(dtypes[argument]):
                raise fail(
                    f"a call of {function.name}() on {function.accepts_rule}",
                    argument,
                    f" (dtype {dtypes[argument]}) in {shown}{where}",
                )
            columns.append(argument)
        if context is not None:
            missing = [c for c in function.context if c not in context]
            if missing:
                needs = ", ".join(_CONTEXT_WORDS.get(c, c) for c in missing)
                raise fail(
                    f"an aggregate that {function_name}() can compute ({function.name}() needs "
                    f"{needs}, which this window kind does not have)",
                    shown,
                    where,
                )
        dtype = (
            function.result_dtype([dtypes[c] for c in columns]) if dtypes is not None else None
        )
        parsed.append(Aggregate(output, function, tuple(columns), dtype, tuple(literals)))
    return parsed
