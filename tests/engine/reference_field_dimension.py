"""A deliberately simple reference: docs/semantics.md section 3 replayed tuple by tuple.

No vectorization and no cleverness: a list of open windows, each holding its rows, and
the steps 1-6 of the contract applied literally to each arriving tuple. The engine is
checked against this, row for row. Timestamps are not handled here (the tests compare a
timestamp run of the engine with an integer run on nanoseconds instead).
"""

from __future__ import annotations

import math
import re

import pandas as pd

from streamwindows.errors import NullFieldError, OutOfOrderError


def is_null(value):
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, float) and math.isnan(value)


def aggregate(function, column, rows):
    """One SQL aggregate over a list of row dicts."""
    if function == "count":
        if column == "*":
            return len(rows)
        return sum(1 for row in rows if not is_null(row[column]))
    values = [row[column] for row in rows]
    if function == "first":
        return values[0] if values else None
    if function == "last":
        return values[-1] if values else None
    present = [v for v in values if not is_null(v)]
    if not present:
        return None
    if function == "sum":
        return sum(present)
    if function == "avg":
        return sum(present) / len(present)
    if function == "min":
        return min(present)
    if function == "max":
        return max(present)
    raise ValueError(function)


def openval_index(value, offset, advance):
    """Grid index k of openval(value): offset + k*advance <= value < the next start."""
    k = math.floor((value - offset) / advance)
    while offset + k * advance > value:
        k -= 1
    while offset + (k + 1) * advance <= value:
        k += 1
    return k


def reference_field_dimension(
    df,
    *,
    field,
    size=None,
    advance=None,
    offset=0,
    group_by=(),
    opening="advance",
    optional_windows="single",
    emit_every=None,
    aggregates,
    drain=False,
    seq=None,
    with_contents=False,
):
    """The emissions, in order, as a DataFrame (the engine's output columns).

    With ``with_contents`` a column ``contents`` lists the arrival positions of the rows
    each emission aggregated, and a column ``point`` the point of each intermediate row.
    """
    if size is not None and advance is None and opening == "advance":
        advance = size
    if seq is not None:
        df = df.sort_values(seq, kind="stable")
    records = df.to_dict("records")
    specs = {}
    for name, spec in aggregates.items():
        function, column = re.match(r"\s*(\w+)\s*\(\s*(\*|\w+)\s*\)", spec).groups()
        specs[name] = (function.lower(), column)

    groups = {}  # key -> {"first": arrival position, "previous": value, "latest_start": s}
    open_windows = []  # dicts: key, start, end, rows, positions, next_point
    emitted = []

    def emit(window, kind, value, point=None):
        row = dict(zip(group_by, window["key"], strict=True))
        row.update(
            window_start=window["start"],
            window_end=window["end"],
            emit_kind=kind,
            emitted_at=value,
            emit_seq=len(emitted),
            row_count=len(window["rows"]),
        )
        for name, (function, column) in specs.items():
            row[name] = aggregate(function, column, window["rows"])
        if with_contents:
            row["contents"] = list(window["positions"])
            row["point"] = point
        emitted.append(row)

    def open_window(key, start, end, value):
        # `opened_by`: the value of the tuple that opened the window; only its points
        # after that value are ever emitted (the window did not exist before).
        open_windows.append(
            {"key": key, "start": start, "end": end, "rows": [], "positions": [],
             "next_point": 1, "opened_by": value}
        )
        groups[key]["latest_start"] = start

    def first_arrival(window):
        return groups[window["key"]]["first"]

    previous_value = None
    for position, row in enumerate(records):
        value = row[field]
        key = tuple(row[c] for c in group_by)
        group = dict(zip(group_by, key, strict=True))
        # 1. OutOfOrder / NULL
        if is_null(value) or (isinstance(value, float) and math.isinf(value)):
            raise NullFieldError(field=field, position=position, group=group)
        if previous_value is not None and value < previous_value:
            raise OutOfOrderError(
                field=field, position=position, group=group, value=value,
                previous_value=previous_value,
            )
        previous_value = value

        # 2. Close, every group
        if size is not None:
            closing = [w for w in open_windows if w["end"] <= value]
            for window in sorted(closing, key=lambda w: (w["start"], first_arrival(w))):
                emit(window, "close", value)
                open_windows.remove(window)

        # 3. Intermediate emissions, every group, once per point reached, only the
        #    points strictly after the opening tuple's value
        if emit_every is not None:
            due = []
            for window in open_windows:
                while True:
                    point = window["start"] + window["next_point"] * emit_every
                    if size is not None and point >= window["end"]:
                        break
                    if point > value:
                        break
                    if point > window["opened_by"]:
                        due.append((window["start"], first_arrival(window), point, window))
                    window["next_point"] += 1
            for _, _, point, window in sorted(due, key=lambda d: d[:3]):
                emit(window, "intermediate", value, point)

        # 4. Open
        state = groups.get(key)
        if state is None:
            state = groups[key] = {"first": position, "previous": None, "latest_start": None}
        has_open = any(w["key"] == key for w in open_windows)
        if opening == "none":
            if not has_open:
                open_window(key, value, None if size is None else value + size, value)
        elif size is None:
            if state["previous"] is None:
                open_window(key, value, None, value)
        else:
            gap = state["previous"] is None or value - state["previous"] >= size
            k = openval_index(value, offset, advance)
            starts = []
            if gap and optional_windows == "single":
                start = offset + k * advance
                if start + size > value:
                    starts.append(start)
            else:
                while True:
                    start = offset + k * advance
                    if start + size <= value:
                        break
                    latest = state["latest_start"]
                    if not gap and latest is not None and start <= latest:
                        break
                    starts.append(start)
                    k -= 1
            for start in sorted(starts):
                open_window(key, start, start + size, value)

        # 5. Enter
        for window in open_windows:
            if window["key"] == key and window["start"] <= value and (
                window["end"] is None or value < window["end"]
            ):
                window["rows"].append(row)
                window["positions"].append(position)
        state["previous"] = value

    # 6. End of input
    if drain:
        for window in sorted(open_windows, key=lambda w: (w["start"], first_arrival(w))):
            emit(window, "drain", None)

    columns = [*group_by, "window_start", "window_end", "emit_kind", "emitted_at",
               "emit_seq", "row_count", *aggregates]
    if with_contents:
        columns += ["contents", "point"]
    return pd.DataFrame(emitted, columns=columns)


def rows(frame, columns=None):
    """An engine output frame as plain Python tuples (NULL as None, lists kept)."""
    frame = frame if columns is None else frame[columns]
    return [
        tuple(v if isinstance(v, list) else (None if is_null(v) else (v.item() if hasattr(v, "item") else v))
              for v in row)
        for row in frame.astype(object).itertuples(index=False)
    ]
