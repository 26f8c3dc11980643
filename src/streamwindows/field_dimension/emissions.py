"""Emission times: which candidates are emitted, and by which tuple.

Only the emission *time* involves other groups. A close at ``end`` is emitted by the
first tuple (any group) with value >= end. A window's intermediate points are those
after its opening value v0 (``p > v0``; the earlier ones are never emitted), so a point
p is emitted by the first tuple with value >= p, which arrives after the opening tuple,
provided that tuple's value is still below ``end`` (otherwise the window closes on it
first and the point is never emitted). Its contents are g's tuples that arrived before
the emitting tuple (see :mod:`streamwindows.field_dimension.window_search`).
:func:`resolve_emissions` finds the emitting tuples by an as-of search of the
thresholds in the global value sequence.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from streamwindows.field_dimension.columns import (
    CLOSE,
    DRAIN,
    Columns,
    column_array,
    kind_codes,
    nullable_coordinates,
    take,
    to_frame,
    values_and_valid,
)
from streamwindows.field_dimension.window_search import sorted_search


def emission_times(
    columns: Columns, values: np.ndarray, positions: np.ndarray | None, drain: bool
) -> tuple[np.ndarray, Columns]:
    """(indices of the candidates emitted, their emit_kind codes, emitted_at and
    emitted_position as columns aligned with the candidates)."""
    n = len(values)
    dtype = values.dtype if n else np.dtype(np.float64)
    threshold, has_threshold = values_and_valid(columns["emit_threshold"], dtype)
    end, has_end = values_and_valid(columns["window_end"], dtype)
    kind = kind_codes(columns["emit_kind"])
    is_close = kind == CLOSE
    after = np.asarray(columns["opened_after_position"], dtype=np.int64)
    if positions is None:
        positions = np.arange(n, dtype=np.int64)
        first_after = after + 1
    else:
        first_after = np.searchsorted(positions, after, side="right")

    emitter = np.maximum(sorted_search(values, threshold), first_after)
    emitter[~has_threshold] = n
    reached = emitter < n
    at = np.minimum(emitter, max(n - 1, 0))
    emitted_value = values[at] if n else np.zeros(len(at), dtype=dtype)
    still_open = ~has_end | (emitted_value < end)
    emitted = reached & (is_close | still_open)
    drained = is_close & ~reached & bool(drain)
    keep = np.flatnonzero(emitted | drained)
    emitted_position = positions[at] if n else np.zeros(len(at), dtype=np.int64)
    return keep, {
        "emit_kind": np.where(drained, DRAIN, kind).astype(np.int8),
        "emitted_at": nullable_coordinates(emitted_value, emitted, dtype.kind in "iu"),
        "emitted_position": pd.arrays.IntegerArray(emitted_position, ~emitted),
    }


def _resolve(
    columns: Columns, values: np.ndarray, positions: np.ndarray | None, drain: bool
) -> Columns:
    keep, times = emission_times(columns, values, positions, drain)
    return {c: take(a, keep) for c, a in {**columns, **times}.items()}


def resolve_emissions(
    candidates: pd.DataFrame,
    global_values: Any,
    global_positions: Any = None,
    *,
    drain: bool = False,
) -> pd.DataFrame:
    """Decide which candidates are emitted and by which tuple (as-of search).

    ``global_values`` are the field coordinates of the whole input in arrival order
    (non-decreasing; see :func:`field_coordinates`) and ``global_positions`` their
    arrival positions (default 0, 1, ...). A candidate is emitted by the first tuple
    arriving after ``opened_after_position`` whose value reaches ``emit_threshold``; an
    intermediate only if that tuple's value is still below ``window_end`` (else the
    window closes on that tuple first). Unreached closes become drains when ``drain``
    and are dropped otherwise; unreached intermediates are dropped. Adds ``emitted_at``
    (coordinates, NULL for drains) and ``emitted_position``; 'close' becomes 'drain'
    where drained.
    """
    positions = None if global_positions is None else np.asarray(global_positions, np.int64)
    columns = {c: column_array(candidates[c]) for c in candidates.columns}
    return to_frame(_resolve(columns, np.asarray(global_values), positions, drain))
