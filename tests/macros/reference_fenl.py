"""A deliberately naive reference for Kaskada Fenl's windows (SEMANTICS.md section 4):
every output row recomputes its window from the entity's rows by brute force."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from zoneinfo import ZoneInfo

from tests.engine.reference_field_dimension import aggregate as reference_aggregate

UTC = dt.UTC


def aggregate(function: str, values: list, *, rows: int | None = None):
    """One aggregate over a window's values, in time-then-arrival order (the engine
    tests' reference, over the values as rows of one column)."""
    if function == "count_rows":
        return len(values) if rows is None else rows
    return reference_aggregate(function, "v", [{"v": v} for v in values])


def _by_entity(stream):
    groups = defaultdict(list)
    for row in stream:
        groups[row["e"]].append(row)
    for rows in groups.values():
        rows.sort(key=lambda r: (r["t"], r["seq"]))
    return groups


def _later_stages(first: list, stages: list[str]) -> list:
    """Repeated aggregation: each later stage is cumulative over the previous outputs."""
    outputs = first
    for function in stages:
        outputs = [aggregate(function, outputs[: i + 1]) for i in range(len(outputs))]
    return outputs


def per_row(stream, *, window: str, pipeline: tuple, n: int = 0, pred: str = "flag"):
    """{seq: value} for cumulative / sliding / since windows. `pipeline` is
    ((function, column), later_function, ...); column '*' counts rows."""
    (function, column), *later = pipeline
    result = {}
    for rows in _by_entity(stream).values():
        first = []
        for i in range(len(rows)):
            if window == "cumulative":
                chosen = rows[: i + 1]
            elif window == "since":
                opened = max((j + 1 for j in range(i) if rows[j][pred]), default=0)
                chosen = rows[opened: i + 1]
            else:  # sliding: the n most recent rows with pred true, NULL while fewer
                counted = [r for r in rows[: i + 1] if r[pred]]
                chosen = counted[-n:] if len(counted) >= n else None
            if chosen is None:
                first.append(None)
            elif column == "*":
                first.append(aggregate("count_rows", chosen))
            else:
                first.append(aggregate(function, [r[column] for r in chosen]))
        for row, value in zip(rows, _later_stages(first, later), strict=True):
            result[row["seq"]] = value
    return result


def _period_start(instant: dt.datetime, period: str, zone: str) -> dt.datetime:
    """The UTC start of the period holding `instant`, in the zone's clock."""
    local = instant.astimezone(ZoneInfo(zone))
    if period == "hourly":
        # An hour starts at each instant whose local minute and second are zero: the
        # latest such whole minute at or before the instant.
        minute = instant.replace(second=0, microsecond=0)
        while not _on_the_hour(minute, zone):
            minute -= dt.timedelta(minutes=1)
        return minute
    if period == "daily":
        wall = local.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    elif period == "monthly":
        wall = local.replace(day=1, hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    else:
        wall = local.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
    return wall.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


def _on_the_hour(instant: dt.datetime, zone: str) -> bool:
    local = instant.astimezone(ZoneInfo(zone))
    return local.minute == 0 and local.second == 0


def _next_start(start: dt.datetime, period: str, zone: str) -> dt.datetime:
    if period == "hourly":
        # The next instant whose local minute and second are zero.
        minute = start + dt.timedelta(minutes=1)
        while not _on_the_hour(minute, zone):
            minute += dt.timedelta(minutes=1)
        return minute
    wall = start.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
    if period == "daily":
        wall = wall + dt.timedelta(days=1)
    elif period == "monthly":
        wall = wall.replace(year=wall.year + wall.month // 12, month=wall.month % 12 + 1)
    else:
        wall = wall.replace(year=wall.year + 1)
    return wall.replace(tzinfo=ZoneInfo(zone)).astimezone(UTC)


def cron(stream, *, period: str, zone: str, pipeline: tuple):
    """{(entity, period_start, period_end): value}: every entity x every period from the
    oldest event's to the newest's (times are aware UTC datetimes)."""
    (function, column), *later = pipeline
    starts = [_period_start(r["t"], period, zone) for r in stream]
    periods, start = [], min(starts)
    while start <= max(starts):
        periods.append((start, _next_start(start, period, zone)))
        start = periods[-1][1]
    result = {}
    for entity, rows in _by_entity(stream).items():
        first = []
        for begin, end in periods:
            chosen = [r for r in rows if begin <= r["t"] < end]
            if column == "*":
                first.append(len(chosen))
            elif all(r[column] is None for r in chosen):
                # A period without rows, or whose rows are all NULL in the column, gives
                # the empty value: 0 for sum and count, NULL for the others.
                first.append(0 if function in ("sum", "count") else None)
            else:
                first.append(aggregate(function, [r[column] for r in chosen]))
        for (begin, end), value in zip(periods, _later_stages(first, later), strict=True):
            result[(entity, begin, end)] = value
    return result
