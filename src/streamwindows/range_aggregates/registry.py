"""What an aggregate function is, and the table of the known ones.

:class:`AggregateFunction` describes one function; :func:`register_aggregate` adds it
to :data:`AGGREGATE_FUNCTIONS`, where specs look it up (the built-ins register in
:mod:`streamwindows.range_aggregates.builtin_functions`).

Adding a function is one :func:`register_aggregate` call with a kernel over ``(columns,
lo, hi)``. Literal arguments (``nth(price, 2)``) are passed to the kernel after ``hi``;
inputs that only the window kind knows (the window durations of RATE) are keyword
arguments named in :attr:`AggregateFunction.context`, given to :meth:`Aggregate.compute`.
Mergeable partial states will hang off :class:`AggregateFunction` the same way (a kernel
producing the state per range and a merge), keeping ranges the unit of work.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from streamwindows.range_aggregates.columns import ColumnData


def _any_dtype(dtype: Any) -> bool:
    return True


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
