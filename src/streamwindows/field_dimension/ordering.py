"""The total emission order and the public output.

:func:`order_emissions` numbers the emissions in emission order (``emit_seq``) and
turns coordinates back into the field's units; the order and the output types are the
package docstring's decisions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from streamwindows.field_dimension.columns import (
    GROUP_NUMBER,
    Columns,
    column_array,
    kind_codes,
    kind_names,
    take,
    to_frame,
    values_and_valid,
)
from streamwindows.field_dimension.params import FieldDimensionParams


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


def ordered_columns(
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
        return column if rows is None else take(column, rows)

    dtype = params.coordinate_dtype
    phase = kind_codes(pick(columns["emit_kind"]))
    position, has_position = values_and_valid(pick(columns["emitted_position"]), np.int64)
    start = np.asarray(pick(columns["window_start"]), dtype=dtype)
    # Drains carry the largest position; 3 * position + phase stays well inside int64.
    position = np.where(has_position, position, np.iinfo(np.int64).max // 4)
    if presorted:
        order = np.lexsort((start, 3 * position + phase))
    else:
        first = np.asarray(pick(columns["group_first_position"]), dtype=np.int64)
        point, _ = values_and_valid(pick(columns["emit_threshold"]), dtype)
        order = np.lexsort((point, first, start, 3 * position + phase))
    final = order if rows is None else rows[order]

    end, has_end = values_and_valid(take(columns["window_end"], final), dtype)
    at, has_at = values_and_valid(take(columns["emitted_at"], final), dtype)
    if group_values is None:
        data: Columns = {c: take(columns[c], final) for c in params.group_by}
    else:
        gid = columns[GROUP_NUMBER][final]
        data = {c: take(group_values[c], gid) for c in params.group_by}
    data["window_start"] = _to_field_units(start[order], None, params, bound=True)
    data["window_end"] = _to_field_units(end, has_end, params, bound=True)
    data["emit_kind"] = kind_names(phase[order])
    data["emitted_at"] = _to_field_units(at, has_at, params, bound=False)
    data["emit_seq"] = np.arange(len(order), dtype=np.int64)
    data["row_count"] = np.asarray(columns["row_count"], dtype=np.int64)[final]
    for aggregate in params.aggregates:
        data[aggregate.name] = take(columns[aggregate.name], final)
    return data


def order_emissions(emissions: pd.DataFrame, params: FieldDimensionParams) -> pd.DataFrame:
    """Number the emissions in emission order and shape the public output.

    Order: emitting tuple's arrival position; on one tuple closes before intermediates;
    then window start, the group's first arrival position, the point. Drains last, by
    window start and group's first arrival. Returns the group columns, window_start,
    window_end, emit_kind, emitted_at, emit_seq (0-based), row_count and the aggregates,
    in the field's units, sorted by emit_seq.
    """
    columns = {c: column_array(emissions[c]) for c in emissions.columns}
    return to_frame(ordered_columns(columns, params), list(params.output_columns))
