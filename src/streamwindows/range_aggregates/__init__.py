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

The other functions (MEDIAN, STDDEV, NTH, RATE, NEST, ...) are described where they are
registered.

The modules, each importing only modules listed before it:

* ``columns``: column preparation (NULL masks, filled values, nullable result types);
* ``statistics``: the kernels of VAR, STDDEV, COV, CORR and MEDIAN
  (:func:`range_moments`, :func:`gather_ranges`);
* ``registry``: :class:`AggregateFunction`, :data:`AGGREGATE_FUNCTIONS`,
  :func:`register_aggregate`, and how to add a function;
* ``builtin_functions``: the other kernels, and the registration of every built-in;
* ``specs``: :class:`Aggregate` and :func:`parse_aggregates`.
"""

from streamwindows.range_aggregates import builtin_functions  # noqa: F401  (registers the built-ins)
from streamwindows.range_aggregates.columns import ColumnData
from streamwindows.range_aggregates.registry import (
    AGGREGATE_FUNCTIONS,
    AggregateFunction,
    register_aggregate,
)
from streamwindows.range_aggregates.specs import Aggregate, parse_aggregates
from streamwindows.range_aggregates.statistics import gather_ranges, range_moments

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
