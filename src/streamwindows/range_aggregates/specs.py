"""Aggregates bound to their output name and input columns, parsed from specs.

:func:`parse_aggregates` turns ``{output_name: spec}`` (``"sum(volume)"``,
``("nth", "price", 2)``, ...) into :class:`Aggregate` objects, checked against the
input's schema before any data is read; :meth:`Aggregate.compute` runs the function's
kernel over many row ranges at once.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from pandas.api.types import pandas_dtype

from streamwindows.errors import InvalidParameterError
from streamwindows.range_aggregates.columns import ColumnData, as_array
from streamwindows.range_aggregates.registry import AGGREGATE_FUNCTIONS, AggregateFunction


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
        arrays = [as_array(columns[c]) for c in self.columns]
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
