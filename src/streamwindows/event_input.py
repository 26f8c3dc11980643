"""Input handling shared by the event engines (count windows, interval aggregation).

Both engines take a frame of events with a start time (and, for interval events, an
end), optionally grouped, and need the same preparation: the arrival order (an explicit
arrival column, stable; otherwise the order of the start time with the frame's row order
as tie-break, the common rules of docs/semantics.md), NULL and order checks that name the offending
row, time coordinates that compare and subtract exactly, and the rows laid out group
after group (arrival order within a group) so that per-group work is vectorized over
all groups at once.

Coordinates: integer times stay int64, float times float64, timestamps become int64
nanoseconds since the epoch (time zone kept for the output).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.checks import ParameterChecks
from streamwindows.errors import (
    InvalidIntervalError,
    NullFieldError,
    OutOfOrderError,
)
from streamwindows.grouping import group_codes, stable_group_order, time_kind

__all__ = [
    "EventLayout",
    "check_columns",
    "from_coordinates",
    "prepare_events",
    "take_column",
    "time_kind",
    "validate_outputs",
]


def take_column(column: pd.Series, rows: np.ndarray) -> Any:
    """``column``'s values at ``rows``: a numpy array or a pandas ExtensionArray."""
    array = column.array
    if isinstance(array, pd.arrays.NumpyExtensionArray):
        return np.asarray(array)[rows]
    return array.take(rows)



def _coordinates(column: pd.Series, kind: str) -> np.ndarray:
    if kind == "timestamp":
        return np.asarray(pd.DatetimeIndex(column).as_unit("ns").asi8, dtype=np.int64)
    if kind == "int":
        return np.asarray(column.to_numpy(dtype=np.int64, na_value=0))
    return np.asarray(column.to_numpy(dtype=np.float64, na_value=np.nan))


def from_coordinates(values: np.ndarray, kind: str, dtype: Any, valid: np.ndarray | None = None) -> Any:
    """Coordinates back to the time column's type (timestamps as ns, time zone kept)."""
    if kind == "timestamp":
        stamps = np.asarray(values, dtype=np.int64).view("M8[ns]")
        if valid is not None:
            stamps = np.where(valid, stamps, np.datetime64("NaT", "ns"))
        index = pd.DatetimeIndex(stamps)
        tz = getattr(dtype, "tz", None)
        if tz is not None:
            index = index.tz_localize("UTC").tz_convert(tz)
        return index.array
    if kind == "int":
        ints = np.asarray(values, dtype=np.int64)
        return ints if valid is None else pd.arrays.IntegerArray(ints, ~valid)
    floats = np.asarray(values, dtype=np.float64)
    return floats if valid is None else np.where(valid, floats, np.nan)


def check_columns(
    frame: Any,
    *,
    function: str,
    model: str | None,
    group_by: Sequence[str] | str | None,
    arrival: str | None,
    reserved: Sequence[str],
) -> tuple[str, ...]:
    """Check ``frame``, ``model``, ``group_by`` and ``arrival``; return group_by as a tuple."""
    checks = ParameterChecks(function, model, frame.columns if isinstance(frame, pd.DataFrame) else ())
    if not isinstance(frame, pd.DataFrame):
        raise checks.fail("frame", "a pandas DataFrame", type(frame).__name__)
    group_by = checks.group_by(group_by, reserved)
    checks.column("arrival", arrival, optional=True)
    return group_by


@dataclass
class EventLayout:
    """The events laid out group after group, arrival order within each group.

    ``rows`` maps each layout row to its row in the arrival-ordered frame, which is also
    its 0-based arrival position; ``arrival_frame`` is the input in arrival order;
    ``gid`` the group number of each layout row (groups numbered by first arrival),
    ``group_starts`` the layout offset of each group (plus the total), ``group_values``
    each group's key values and ``start``/``end`` the coordinates in layout order.
    """

    arrival_frame: pd.DataFrame
    arrival_seqs: np.ndarray | None
    rows: np.ndarray
    gid: np.ndarray
    group_starts: np.ndarray
    group_values: dict[str, Any]
    start: np.ndarray
    end: np.ndarray | None
    start_arrival: np.ndarray  # start coordinates in arrival order
    kind: str

    @property
    def n_groups(self) -> int:
        return len(self.group_starts) - 1


def _group_of(frame: pd.DataFrame, group_by: tuple[str, ...], row: int) -> dict[str, Any]:
    return {c: frame[c].iloc[row] for c in group_by}


def _check_finite(
    values: np.ndarray,
    nulls: np.ndarray,
    frame: pd.DataFrame,
    *,
    field: str,
    group_by: tuple[str, ...],
    seqs: np.ndarray | None,
    model: str | None,
) -> None:
    bad = nulls | (~np.isfinite(values) if values.dtype.kind == "f" else False)
    if np.any(bad):
        row = int(np.argmax(bad))
        raise NullFieldError(
            field=field,
            position=row,
            group=_group_of(frame, group_by, row),
            seq=None if seqs is None else seqs[row],
            value=None if nulls[row] else values[row],
            model=model,
        )


def prepare_events(
    frame: pd.DataFrame,
    *,
    start: str,
    end: str | None,
    group_by: tuple[str, ...],
    arrival: str | None,
    kind: str,
    model: str | None,
    global_order: bool = False,
) -> EventLayout:
    """Arrival order, checks and the grouped layout (see the module docstring).

    Raises :class:`NullFieldError` for a NULL (or infinite) arrival value, start or end,
    :class:`OutOfOrderError` when a start goes below the previous start of its group in
    arrival order (of any group with ``global_order``) and :class:`InvalidIntervalError`
    when an end is not after its start. Positions in the messages are 0-based arrival
    positions; without an arrival column a NULL start has no arrival position and is
    reported at its row in the frame.
    """
    seqs = None
    if arrival is not None:
        arrival_values = frame[arrival]
        missing = np.asarray(arrival_values.isna(), dtype=bool)
        if missing.any():
            row = int(np.argmax(missing))
            raise NullFieldError(
                field=arrival, position=row, group=_group_of(frame, group_by, row), model=model
            )
        order = np.argsort(arrival_values.to_numpy(), kind="stable")
        seqs = arrival_values.to_numpy()[order]
        frame = frame.take(order)
    frame = frame.reset_index(drop=True)
    starts = _coordinates(frame[start], kind)
    start_nulls = np.asarray(frame[start].isna(), dtype=bool)
    _check_finite(starts, start_nulls, frame, field=start, group_by=group_by, seqs=seqs, model=model)
    if arrival is None:
        order = np.argsort(starts, kind="stable")
        if np.any(order != np.arange(len(order))):
            frame = frame.take(order).reset_index(drop=True)
            starts = starts[order]
    ends = None
    if end is not None:
        ends = _coordinates(frame[end], kind)
        end_nulls = np.asarray(frame[end].isna(), dtype=bool)
        _check_finite(ends, end_nulls, frame, field=end, group_by=group_by, seqs=seqs, model=model)

    n = len(frame)
    codes, n_groups = group_codes(frame, group_by)
    if n_groups > 1:
        rows = stable_group_order(codes, n_groups).astype(np.intp)
    else:
        rows = np.arange(n, dtype=np.intp)
    gid = codes[rows]
    group_starts = np.searchsorted(gid, np.arange(n_groups + 1), side="left")
    start_layout = starts[rows]

    # Order: a start below the previous start (of the group, or of the stream).
    if global_order:
        previous_rows = np.arange(-1, n - 1)
        back = np.flatnonzero(starts[1:] < starts[:-1]) + 1
    else:
        same = np.zeros(n, dtype=bool)
        same[1:] = gid[1:] == gid[:-1]
        previous_layout = np.flatnonzero(same[1:] & (start_layout[1:] < start_layout[:-1])) + 1
        back = rows[previous_layout]
        previous_rows = np.empty(n, dtype=np.intp)
        previous_rows[rows[1:]] = rows[:-1]
    if len(back):
        row = int(back.min())
        previous = int(previous_rows[row])
        raise OutOfOrderError(
            field=start,
            position=row,
            group=_group_of(frame, group_by, row),
            value=frame[start].iloc[row],
            previous_value=frame[start].iloc[previous],
            seq=None if seqs is None else seqs[row],
            previous_position=previous,
            previous_group=_group_of(frame, group_by, previous) if global_order else None,
            model=model,
            previous_seq=None if seqs is None else seqs[previous],
        )

    if ends is not None:
        inverted = np.flatnonzero(ends <= starts)
        if len(inverted):
            row = int(inverted[0])
            raise InvalidIntervalError(
                start_field=start,
                end_field=end,
                position=row,
                group=_group_of(frame, group_by, row),
                start=frame[start].iloc[row],
                end=frame[end].iloc[row],
                seq=None if seqs is None else seqs[row],
                model=model,
            )

    first_rows = rows[group_starts[:-1]]
    group_values = {c: take_column(frame[c], first_rows) for c in group_by}
    return EventLayout(
        arrival_frame=frame,
        arrival_seqs=seqs,
        rows=rows,
        gid=gid,
        group_starts=group_starts,
        group_values=group_values,
        start=start_layout,
        end=None if ends is None else ends[rows],
        start_arrival=starts,
        kind=kind,
    )


def validate_outputs(
    user_aggregates: Any,
    parsed_names: Sequence[str],
    *,
    function: str,
    model: str | None,
    group_by: tuple[str, ...],
    reserved: Sequence[str],
) -> dict[str, Any]:
    """Check the user aggregates and every output name; return the user aggregates."""

    fail = ParameterChecks(function, model, ()).fail
    if user_aggregates is None:
        user_aggregates = {}
    if not isinstance(user_aggregates, Mapping):
        raise fail("user_aggregates", "a mapping of output column name to a function of the window's events",
                   user_aggregates)
    for name, function_ in user_aggregates.items():
        if not isinstance(name, str) or not name:
            raise fail("user_aggregates", "keyed by non-empty output column names", name)
        if not callable(function_):
            raise fail("user_aggregates", f"functions of the window's events (output '{name}')", function_)
    taken = set(group_by) | set(reserved)
    rule = (
        "keyed by distinct output names that are neither group_by columns nor reserved "
        f"({', '.join(reserved)})"
    )
    for name in parsed_names:
        if name in taken:
            raise fail("aggregates", rule, name)
    for name in user_aggregates:
        if name in taken or name in parsed_names:
            raise fail("user_aggregates", rule, name)
    return dict(user_aggregates)
