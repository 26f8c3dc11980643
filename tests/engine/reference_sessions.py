"""A deliberately simple reference for the session windows of SEMANTICS.md ruling 7.5, and
for Flink's TUMBLE, HOP and CUMULATE windows and its window Top-N, which users of session
windows arrive from. Plain Python over lists of row dicts, written from the contract's text
and no engine's code, so the macros can be checked against something that shares nothing
with them.

Times are ints (tick 1) or datetime.datetime (tick one microsecond, Spark's resolution);
sizes, slides, steps, offsets and gaps are then ints or datetime.timedelta. A key value may
be None, a key of its own as in GROUP BY. Aggregates are the package's spec strings
('sum(v)', 'first(v)', 'rate(*)'...), computed by reference_aggregates over a window's rows
in arrival order, so first/last mean first/last to arrive.
"""

from __future__ import annotations

import datetime as dt
import functools

from .reference_aggregates import reference_value
from .reference_field_dimension import is_null

GAP_BOUNDARIES = ("inclusive", "exclusive")
FLINK_KINDS = ("tumble", "hop", "cumulate")
EPOCH = dt.datetime(1970, 1, 1)


def _columns(partition_by):
    if partition_by is None:
        return []
    return [partition_by] if isinstance(partition_by, str) else list(partition_by)


def _key_order(key):
    """Sort key of a tuple of key values: None before any value, as Spark's NULLS FIRST."""
    return tuple((value is not None, value) for value in key)


def _is_datetime_like(*values):
    return any(isinstance(v, dt.datetime | dt.timedelta) for v in values)


def _tick(tick, *values):
    if tick is not None:
        return tick
    return dt.timedelta(microseconds=1) if _is_datetime_like(*values) else 1


def _seconds(length):
    """A window's length as rate() divides by it: seconds for timestamps, the plain
    difference for numeric times."""
    return length / dt.timedelta(seconds=1) if isinstance(length, dt.timedelta) else length


def _origin(t):
    """What floor() counts from: 0 for numeric times, the epoch for timestamps (Flink and
    Spark count from 1970-01-01 00:00 UTC; an aware time gets the UTC epoch)."""
    if isinstance(t, dt.datetime):
        return EPOCH if t.tzinfo is None else EPOCH.replace(tzinfo=dt.UTC)
    return 0


def _prepared(rows, time, arrival):
    """The rows with their arrival positions, refusing a NULL time (the contract never
    drops a row silently)."""
    out = []
    for position, row in enumerate(rows):
        if is_null(row[time]):
            raise ValueError(f"row {position} ({row}): `{time}` is NULL")
        out.append((row[arrival] if arrival else position, row))
    return out


def _by_key(prepared, keys):
    groups = {}
    for order, row in prepared:
        groups.setdefault(tuple(row[k] for k in keys), []).append((order, row))
    return groups


def _window_row(keys, key, start, end, tick, members, is_final, aggregates):
    """One output row: key columns, the window, its count and finality, then the aggregates
    over the members (a list of (arrival, row)) in arrival order."""
    in_arrival_order = [row for _, row in sorted(members, key=lambda m: m[0])]
    out = dict(zip(keys, key, strict=True))
    out.update(window_start=start, window_end=end, window_time=end - tick,
               event_count=len(members), is_final=is_final)
    for name, spec in (aggregates or {}).items():
        out[name] = reference_value(spec, in_arrival_order, duration=_seconds(end - start))
    return out


def reference_sessions(rows, *, gap, partition_by, aggregates, gap_boundary="inclusive", tick=None,
                       time="t", arrival="seq"):
    """Session windows (ruling 7.5): per key, the events in (time, arrival) order; an event
    joins the session of the one before it when it follows it by at most `gap` (inclusive)
    or by less than `gap` (exclusive). A session is [first time, last time + gap); it is
    final once the stream's latest time (any key) is past where it could still grow:
    > window_end (inclusive), >= window_end (exclusive). `tick` defaults to 1, or one
    microsecond for timestamps. Rows sorted by (keys, NULL first; window_start)."""
    if gap_boundary not in GAP_BOUNDARIES:
        raise ValueError(f"gap_boundary must be one of {GAP_BOUNDARIES}; got {gap_boundary!r}")
    if not gap > gap * 0:
        raise ValueError(f"gap must be positive; got {gap!r}")
    keys = _columns(partition_by)
    prepared = _prepared(rows, time, arrival)
    if not prepared:
        return []
    tick = _tick(tick, gap, prepared[0][1][time])
    stream_max = max(row[time] for _, row in prepared)

    def joins(previous_time, t):
        return t - previous_time <= gap if gap_boundary == "inclusive" else t - previous_time < gap

    def final(end):
        return stream_max > end if gap_boundary == "inclusive" else stream_max >= end

    out = []
    for key, events in _by_key(prepared, keys).items():
        events.sort(key=lambda e: (e[1][time], e[0]))
        sessions = []
        for event in events:
            if sessions and joins(sessions[-1][-1][1][time], event[1][time]):
                sessions[-1].append(event)
            else:
                sessions.append([event])
        for members in sessions:
            start, end = members[0][1][time], members[-1][1][time] + gap
            out.append(_window_row(keys, key, start, end, tick, members, final(end), aggregates))
    out.sort(key=lambda r: (_key_order(tuple(r[k] for k in keys)), r["window_start"]))
    return out


def _floor(t, size, offset):
    """The start of the size-long grid cell holding t: floor((t - offset) / size) * size + offset,
    from the epoch for timestamps (timedelta // timedelta is an exact integer floor)."""
    origin = _origin(t)
    return origin + ((t - origin) - offset) // size * size + offset


def _flink_windows(t, kind, size, slide, step, offset):
    """The [start, end) windows an event at time t belongs to."""
    if kind == "tumble":
        start = _floor(t, size, offset)
        return [(start, start + size)]
    if kind == "hop":
        windows = []
        start = _floor(t, slide, offset)  # the latest start at or before t
        while start + size > t:
            windows.append((start, start + size))
            start -= slide
        return windows
    base = _floor(t, size, offset)
    ends = [base + j * step for j in range(1, size // step + 1)]
    return [(base, end) for end in ends if t < end]


def _members_by_window(prepared, keys, time, kind, size, slide, step, offset):
    """(key values, (start, end)) -> the (arrival, row) pairs of the window, in arrival order."""
    windows = {}
    for order, row in prepared:
        key = tuple(row[k] for k in keys)
        for window in _flink_windows(row[time], kind, size, slide, step, offset):
            windows.setdefault((key, window), []).append((order, row))
    return windows


def reference_flink_windows(rows, *, kind, size, slide=None, step=None, offset=0, partition_by, aggregates,
                            tick=None, time="t", arrival="seq"):
    """Flink's window TVFs grouped by (keys, window_start, window_end): TUMBLE [start,
    start + size); HOP every [s, s + size) with s on the slide grid and s <= t < s + size;
    CUMULATE [base, base + j*step) for j = 1..size/step on the size grid, holding the events
    before its end. Only windows with an event give a row. is_final: the stream's latest
    time (any key) >= window_end, Flink's watermark having passed the end. Rows sorted by
    (keys, NULL first; window_start; window_end)."""
    if kind not in FLINK_KINDS:
        raise ValueError(f"kind must be one of {FLINK_KINDS}; got {kind!r}")
    if not size > size * 0:
        raise ValueError(f"size must be positive; got {size!r}")
    if kind == "hop" and (slide is None or not slide > size * 0):
        raise ValueError(f"hop needs a positive slide; got {slide!r}")
    if kind == "cumulate" and (step is None or not step > size * 0 or size // step * step != size):
        raise ValueError(f"cumulate needs a positive step dividing size {size!r}; got {step!r}")
    if isinstance(size, dt.timedelta) and not offset:
        offset = size * 0
    keys = _columns(partition_by)
    prepared = _prepared(rows, time, arrival)
    if not prepared:
        return []
    tick = _tick(tick, size, prepared[0][1][time])
    stream_max = max(row[time] for _, row in prepared)
    windows = _members_by_window(prepared, keys, time, kind, size, slide, step, offset)
    out = [_window_row(keys, key, start, end, tick, members, stream_max >= end, aggregates)
           for (key, (start, end)), members in windows.items()]
    out.sort(key=lambda r: (_key_order(tuple(r[k] for k in keys)), r["window_start"], r["window_end"]))
    return out


def reference_window_top_n(rows, *, size, n, order_by, descending=False, slide=None, offset=0, partition_by,
                           tick=None, time="t", arrival="seq"):
    """Flink's window Top-N: each row in its tumbling window (hopping windows when `slide`
    is given); per (window, keys) the first n rows by `order_by` (a column or a list;
    ascending unless `descending`), NULLs last either way, ties broken by arrival (earlier
    first). Each kept row is the input row plus window_start, window_end, window_time and
    `rank` (1..n, a row number). Sorted by (keys, NULL first; window_start; rank)."""
    if not n >= 1:
        raise ValueError(f"n must be at least 1; got {n!r}")
    order_columns = _columns(order_by)
    if isinstance(size, dt.timedelta) and not offset:
        offset = size * 0
    keys = _columns(partition_by)
    prepared = _prepared(rows, time, arrival)
    if not prepared:
        return []
    tick = _tick(tick, size, prepared[0][1][time])

    def compare(a, b):
        for column in order_columns:
            x, y = a[1][column], b[1][column]
            if is_null(x) or is_null(y):
                if is_null(x) != is_null(y):
                    return 1 if is_null(x) else -1
                continue
            if x != y:
                return (-1 if x < y else 1) * (-1 if descending else 1)
        return -1 if a[0] < b[0] else (1 if a[0] > b[0] else 0)

    kind = "tumble" if slide is None else "hop"
    windows = _members_by_window(prepared, keys, time, kind, size, slide, None, offset)
    out = []
    for (_, (start, end)), members in windows.items():
        ranked = sorted(members, key=functools.cmp_to_key(compare))[:n]
        for rank, (_, row) in enumerate(ranked, start=1):
            out.append({**row, "window_start": start, "window_end": end, "window_time": end - tick, "rank": rank})
    out.sort(key=lambda r: (_key_order(tuple(r[k] for k in keys)), r["window_start"], r["rank"]))
    return out
