"""The candidate table: every window and each moment it may emit, with its aggregates.

:func:`group_windows` is the per-group step (the rows of one group, embarrassingly
parallel). :func:`candidate_columns` turns the arrays of :func:`window_candidates`
into the documented :data:`CANDIDATE_COLUMNS`, computing the aggregates over each
candidate's range of rows (RATE with :func:`window_durations`); the whole-frame
pipeline uses it on all groups at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from streamwindows.errors import InvalidParameterError
from streamwindows.field_dimension.columns import (
    CLOSE,
    GROUP_NUMBER,
    INTERMEDIATE,
    Columns,
    column_array,
    nullable_coordinates,
    take,
    to_frame,
    values_and_valid,
)
from streamwindows.field_dimension.coordinates import field_coordinates, horizon_coordinate
from streamwindows.field_dimension.params import ARRIVAL_POSITION, FieldDimensionParams
from streamwindows.field_dimension.window_search import window_candidates


def candidate_columns(
    raw: dict[str, Any],
    group_values: Columns,
    inputs: Columns,
    positions: np.ndarray,
    group_starts: np.ndarray,
    params: FieldDimensionParams,
    *,
    group_numbers: bool = False,
) -> Columns:
    """Candidate arrays -> the documented candidate columns, with the aggregates.

    ``group_values`` hold each group's key (one entry per group), ``inputs`` the
    aggregates' input columns and ``positions`` the arrival positions, both in the
    grouped row order of ``raw``. With ``group_numbers`` the group columns are left out
    and a column of group numbers stands in for them (cheaper to carry along).
    """
    gid = raw["gid"]
    first_row = group_starts[:-1][gid]
    lo, hi = raw["lo"], raw["hi"]
    n = len(gid)
    if group_numbers:
        data: Columns = {GROUP_NUMBER: gid}
    else:
        data = {c: take(group_values[c], gid) for c in params.group_by}
    data["window_start"] = raw["window_start"]
    if raw["window_end"] is None:
        data["window_end"] = nullable_coordinates(
            np.zeros(n, dtype=params.coordinate_dtype), np.zeros(n, dtype=bool), params.exact
        )
    else:
        data["window_end"] = raw["window_end"]
    data["emit_kind"] = np.where(raw["is_point"], INTERMEDIATE, CLOSE).astype(np.int8)
    data["emit_threshold"] = nullable_coordinates(
        raw["threshold"], raw["has_threshold"], params.exact
    )
    data["opened_after_position"] = positions[lo]
    data["group_first_position"] = positions[first_row]
    data["contents_lo"] = (lo - first_row).astype(np.int64, copy=False)
    data["contents_hi"] = (hi - first_row).astype(np.int64, copy=False)
    data["row_count"] = (hi - lo).astype(np.int64, copy=False)
    durations = None
    if any(a.needs_durations for a in params.aggregates):
        durations = window_durations(raw, params)
    for aggregate in params.aggregates:
        data[aggregate.name] = aggregate.compute(inputs, lo, hi, durations=durations)
    return data


def window_durations(raw: dict[str, Any], params: FieldDimensionParams) -> np.ndarray:
    """Each window's duration for RATE: ``window_end - window_start`` in seconds for a
    timestamp field, in the field's unit otherwise; NaN for windows without an end."""
    start = np.asarray(raw["window_start"], dtype=params.coordinate_dtype)
    if raw["window_end"] is None:
        return np.full(len(start), np.nan)
    end, valid = values_and_valid(raw["window_end"], params.coordinate_dtype)
    durations = np.where(valid, (end - start).astype(np.float64), np.nan)  # subtract exactly first
    if params.field_kind == "timestamp":
        durations = durations / 1e9
    return durations


def input_columns(params: FieldDimensionParams) -> list[str]:
    return list(dict.fromkeys(c for a in params.aggregates for c in a.columns))


def group_windows(
    group_df: pd.DataFrame,
    params: FieldDimensionParams,
    *,
    position_column: str = ARRIVAL_POSITION,
    horizon: Any = None,
) -> pd.DataFrame:
    """Every window of ONE group and each moment it may emit, with its aggregates.

    ``group_df`` holds all rows of one group (any order) and a column
    ``position_column`` with each row's global arrival position; the field must already
    have passed :func:`check_arrival_order`. ``horizon`` is the largest field value of
    the whole input: it bounds the intermediate points generated and is required when
    ``emit_every`` is set without ``size``.

    One row per emission candidate, columns :data:`CANDIDATE_COLUMNS` after the group
    columns, then the aggregates. Bounds and thresholds are coordinates (the field's
    units; integer nanoseconds for timestamps):

    * ``emit_kind`` 'close' (emits when a tuple reaches ``emit_threshold`` =
      ``window_end``; a drain candidate when no tuple does; ``emit_threshold`` NULL
      without ``size``) or 'intermediate' (``emit_threshold`` is the point);
    * ``opened_after_position``: arrival position of the opening tuple; an emission
      happens strictly after it;
    * ``group_first_position``: the group's first arrival position (for ordering);
    * ``contents_lo``/``contents_hi``: the window's contents at that emission, as the
      range of the group's rows in arrival order; ``row_count`` its length.

    Which candidates are emitted, and when, is decided by :func:`resolve_emissions`.
    """
    for column in (position_column, params.field, *params.group_by, *input_columns(params)):
        if column not in group_df.columns:
            raise InvalidParameterError(
                "group_windows", "group_df", f"a frame with a column '{column}'",
                ", ".join(map(str, group_df.columns)), model=params.model,
            )
    rows = group_df.sort_values(position_column, kind="stable")
    n = len(rows)
    if params.group_by and n:
        n_groups = len(rows[list(params.group_by)].drop_duplicates())
        if n_groups > 1:
            raise InvalidParameterError(
                "group_windows", "group_df", "the rows of exactly one group",
                f"{n_groups} groups", model=params.model,
            )
    if params.emit_every is not None and params.size is None and horizon is None and n:
        raise InvalidParameterError(
            "group_windows", "horizon",
            "the largest field value of the input when emit_every is set without size",
            horizon, model=params.model,
        )
    u = field_coordinates(rows[params.field], params)
    positions = rows[position_column].to_numpy(dtype=np.int64)
    group_starts = np.array([0, n] if n else [0], dtype=np.int64)
    horizon_c = None if horizon is None else horizon_coordinate(horizon, params)

    def search(x: np.ndarray, _: np.ndarray) -> np.ndarray:
        return np.searchsorted(u, x, side="left")

    raw = window_candidates(u, group_starts, params, search, horizon_c)
    first = np.zeros(1 if n else 0, dtype=np.intp)
    group_values = {c: take(column_array(rows[c]), first) for c in params.group_by}
    inputs = {c: column_array(rows[c]) for c in input_columns(params)}
    return to_frame(candidate_columns(raw, group_values, inputs, positions, group_starts, params))
