"""The whole pipeline on a pandas frame.

:func:`field_dimension_aggregate` chains the public steps, running the per-group step
on all groups at once: the same vectorized core, over all groups' rows laid out group
after group.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from streamwindows.errors import NullFieldError
from streamwindows.field_dimension.candidates import candidate_columns, input_columns
from streamwindows.field_dimension.columns import column_array, take, to_frame
from streamwindows.field_dimension.coordinates import check_arrival_order, field_coordinates
from streamwindows.field_dimension.emissions import emission_times
from streamwindows.field_dimension.ordering import ordered_columns
from streamwindows.field_dimension.params import validate_parameters
from streamwindows.field_dimension.window_search import grouped_search, window_candidates
from streamwindows.grouping import group_codes, stable_group_order


def field_dimension_aggregate(
    df: pd.DataFrame,
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
) -> pd.DataFrame:
    """What StreamBase's Aggregate operator with a field dimension emits on ``df``.

    ``df`` is replayed in row order, or in ``seq`` order (stable) when ``seq`` names an
    arrival-order column. ``field`` is an int, float or timestamp column (timestamps in
    seconds: ``size``, ``advance``, ``offset`` and ``emit_every`` are then seconds or
    timedeltas). ``size``: close-and-emit after (None: windows never close);
    ``advance`` (<= size, default size); ``offset`` of the window grid; ``group_by``:
    separate windows per group; ``opening``: 'advance' (open windows on the grid) or
    'none' (a window opens at the tuple's own value whenever its group has none);
    ``optional_windows``: 'single' or 'all' windows on the first tuple and after a
    gap; ``emit_every``: intermediate emission period; ``aggregates``:
    ``{output_name: "sum(volume)" | ("sum", "volume")}``; ``drain``: emit the windows
    still open at the end (emit_kind 'drain'); ``model`` names the model in errors.

    Returns the group columns, ``window_start``, ``window_end`` (NULL without size),
    ``emit_kind`` ('close' | 'intermediate' | 'drain'), ``emitted_at`` (field value of
    the emitting tuple; NULL for drains), ``emit_seq`` (0-based emission order),
    ``row_count`` and the aggregates, sorted by ``emit_seq``. Raises
    :class:`InvalidParameterError`, :class:`OutOfOrderError`, :class:`NullFieldError`.
    """
    params = validate_parameters(
        df.dtypes,
        field=field,
        size=size,
        advance=advance,
        offset=offset,
        group_by=group_by,
        opening=opening,
        optional_windows=optional_windows,
        emit_every=emit_every,
        aggregates=aggregates,
        drain=drain,
        seq=seq,
        model=model,
    )
    group_by = params.group_by
    needed = list(dict.fromkeys([params.field, *group_by, *input_columns(params)]))
    frame = df[needed]
    seqs = None
    if params.seq is not None:
        seq_values = df[params.seq]
        missing = np.asarray(seq_values.isna(), dtype=bool)
        if missing.any():
            row = int(np.argmax(missing))
            raise NullFieldError(
                field=params.seq,
                position=row,
                group={c: df[c].iloc[row] for c in group_by},
                model=params.model,
            )
        arrival = np.argsort(seq_values.to_numpy(), kind="stable")
        frame = frame.take(arrival)
        seqs = seq_values.to_numpy()[arrival]
    frame = frame.reset_index(drop=True)
    check_arrival_order(
        frame[params.field],
        None,
        {c: frame[c] for c in group_by},
        field=params.field,
        seqs=seqs,
        model=params.model,
    )
    u_arrival = field_coordinates(frame[params.field], params)
    n = len(frame)
    codes, n_groups = group_codes(frame, group_by)
    inputs = {c: column_array(frame[c]) for c in input_columns(params)}
    if n_groups > 1:
        order = stable_group_order(codes, n_groups)
        gid = codes[order]
        u = u_arrival[order]
        group_starts = np.searchsorted(gid, np.arange(n_groups + 1), side="left")
        inputs = {c: take(a, order) for c, a in inputs.items()}
        search = grouped_search(u, gid, order, u_arrival, n_groups)
        positions = order.astype(np.int64)
    else:
        u, positions = u_arrival, np.arange(n, dtype=np.int64)
        group_starts = np.array([0, n] if n else [0], dtype=np.int64)

        def search(x: np.ndarray, g: np.ndarray) -> np.ndarray:
            return np.searchsorted(u, x, side="left")

    first_rows = positions[group_starts[:-1]]
    group_values = {c: take(column_array(frame[c]), first_rows) for c in group_by}
    horizon = u_arrival[-1] if n else None
    raw = window_candidates(u, group_starts, params, search, horizon)
    candidates = candidate_columns(
        raw, group_values, inputs, positions, group_starts, params, group_numbers=True
    )
    keep, times = emission_times(candidates, u_arrival, None, params.drain)
    output = ordered_columns({**candidates, **times}, params, group_values, presorted=True, rows=keep)
    return to_frame(output, list(params.output_columns))
