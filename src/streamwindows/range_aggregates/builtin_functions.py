"""The built-in aggregate functions: their range kernels and their registration.

Importing this module registers COUNT, SUM, AVG, MIN, MAX, FIRST, LAST, NTH, MEDIAN,
VAR, STDDEV, COV, CORR, RATE, NEST, DISTINCTNEST and COMPLETENESS; the kernels of VAR,
STDDEV, COV, CORR and MEDIAN are in :mod:`streamwindows.range_aggregates.statistics`,
the others here. The NULL semantics and result types of the first ones are in the
package docstring.

The Odysseus set (docs/semantics.md, Odysseus section) is complete: besides those, MEDIAN
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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_numeric_dtype

from streamwindows.range_aggregates.columns import (
    ColumnData,
    as_array,
    is_intlike,
    null_mask,
    nullable,
    nullable_dtype,
    numeric,
)
from streamwindows.range_aggregates.registry import AggregateFunction, register_aggregate
from streamwindows.range_aggregates.statistics import (
    kernel_correlation,
    kernel_covariance,
    kernel_median,
    kernel_stddev,
    kernel_variance,
)


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
    return _counts(null_mask(columns[0]), lo, hi)


def _kernel_sum(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    column = columns[0]
    values, nulls = numeric(column, 0)
    empty = _counts(nulls, lo, hi) == 0
    if values.dtype == np.int64:
        return pd.arrays.IntegerArray(_prefix_sums(values, lo, hi), empty)
    # Float prefix sums would cancel catastrophically; reduceat adds each range afresh.
    sums = range_reduce(np.add, values, lo, hi, 0.0)
    sums[empty] = np.nan
    return sums


def _kernel_avg(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    values, nulls = numeric(columns[0], 0)
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
    array = as_array(columns[0])
    ufunc = np.maximum if largest else np.minimum
    if is_numeric_dtype(array.dtype):
        if is_intlike(array.dtype):
            info = np.iinfo(np.int64)
            fill = info.min if largest else info.max
        else:
            fill = -np.inf if largest else np.inf
        values, nulls = numeric(array, fill)
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
    return pd.api.extensions.take(as_array(uniques), picked, allow_fill=True)


def _kernel_min(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _extreme(columns, lo, hi, largest=False)


def _kernel_max(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _extreme(columns, lo, hi, largest=True)


def _pick(columns: Sequence[ColumnData], rows: np.ndarray, present: np.ndarray) -> ColumnData:
    array = nullable(as_array(columns[0]))
    return pd.api.extensions.take(array, np.where(present, rows, -1), allow_fill=True)


def _kernel_first(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _pick(columns, lo, hi > lo)


def _kernel_last(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray) -> ColumnData:
    return _pick(columns, hi - 1, hi > lo)


def _kernel_nth(columns: Sequence[ColumnData], lo: np.ndarray, hi: np.ndarray, n: int) -> ColumnData:
    rows = lo + (n - 1)
    return _pick(columns, rows, rows < hi)


def _python_values(array: ColumnData) -> list[Any]:
    """The column as a list of Python values (timestamps as pandas Timestamps), NULL as None."""
    array = as_array(array)
    if isinstance(array, np.ndarray) and array.dtype.kind in "biuf":
        values = array.tolist()
    else:
        if isinstance(array, np.ndarray) and array.dtype.kind in "mM":
            array = pd.array(array)
        values = np.asarray(array.astype(object), dtype=object).tolist()
    nulls = null_mask(array)
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
    present = _counts(null_mask(as_array(columns[0])), lo, hi).astype(np.float64)
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


def _numeric_dtype(dtype: Any) -> bool:
    return is_numeric_dtype(dtype)


def _count_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(np.int64)


def _sum_dtype(dtypes: Sequence[Any]) -> Any:
    return pd.Int64Dtype() if is_intlike(dtypes[0]) else np.dtype(np.float64)


def _avg_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(np.float64)


def _same_dtype(dtypes: Sequence[Any]) -> Any:
    return nullable_dtype(dtypes[0])


def _float_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(np.float64)


def _list_dtype(dtypes: Sequence[Any]) -> Any:
    return np.dtype(object)


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
        "median", kernel_median, _float_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="interpolated median of the non-NULL values",
    ),
    AggregateFunction(
        "var", kernel_variance, _float_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="sample variance (NULL below 2 values)",
    ),
    AggregateFunction(
        "stddev", kernel_stddev, _float_dtype, accepts=_numeric_dtype,
        accepts_rule="a numeric column", description="sample standard deviation (NULL below 2 values)",
    ),
    AggregateFunction(
        "cov", kernel_covariance, _float_dtype, ("column", "column"), accepts=_numeric_dtype,
        accepts_rule="numeric columns", description="sample covariance of the complete pairs",
    ),
    AggregateFunction(
        "corr", kernel_correlation, _float_dtype, ("column", "column"), accepts=_numeric_dtype,
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
