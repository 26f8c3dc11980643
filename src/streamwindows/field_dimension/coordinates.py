"""Arrival order and coordinates.

:func:`check_arrival_order` runs on the whole stream: the field must never be NULL or
not finite, and never decrease in arrival order. :func:`field_coordinates` turns the
field's values into the numbers the windows are computed on (int64 or float64; integer
nanoseconds for timestamps), :func:`horizon_coordinate` one value likewise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import (
    is_bool_dtype,
    is_datetime64_any_dtype,
    is_integer_dtype,
)

from streamwindows.errors import NullFieldError, OutOfOrderError
from streamwindows.field_dimension.params import FieldDimensionParams


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
        previous_seq=None if seqs is None else seqs[row - 1],
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


def horizon_coordinate(horizon: Any, params: FieldDimensionParams) -> int | float:
    if params.field_kind == "timestamp":
        stamp = pd.Timestamp(horizon)
        if stamp.tzinfo is not None:
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return int(stamp.as_unit("ns").value)
    return int(horizon) if params.exact else float(horizon)
