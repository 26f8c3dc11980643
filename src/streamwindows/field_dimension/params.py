"""Parameters of a field-dimension aggregation, checked before any data is read.

:func:`validate_parameters` checks every parameter against the input's schema and
returns them normalized as :class:`FieldDimensionParams`: ``size``, ``advance``,
``offset`` and ``emit_every`` in *coordinates* (the field's units; integer nanoseconds
for a timestamp field), in int64 or float64 as the package docstring's decisions say.
The names of the output and candidate columns live here too: they are reserved.
"""

from __future__ import annotations

import datetime
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import pandas_dtype

from streamwindows.checks import ParameterChecks
from streamwindows.errors import format_allowed
from streamwindows.grouping import time_kind
from streamwindows.range_aggregates import Aggregate, parse_aggregates

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
