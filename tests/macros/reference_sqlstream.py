"""A deliberately naive reference for SQLstream windows: for every row, scan every
row of the input and keep those in its window (SEMANTICS.md section 1, read literally).
O(n^2); only for small random inputs."""

from __future__ import annotations

import math


def _aggregate(function: str, column: str, members: list[dict]):
    if function == "count" and column == "*":
        return len(members)
    values = [m[column] for m in members]
    present = [v for v in values if v is not None]
    if function == "count":
        return len(present)
    if function == "first":
        return min(members, key=lambda m: m["seq"])[column]
    if function == "last":
        return max(members, key=lambda m: m["seq"])[column]
    if not present:
        return None
    if function == "min":
        return min(present)
    if function == "max":
        return max(present)
    if function == "sum":
        return sum(present)
    if function == "avg":
        return sum(present) / len(present)
    if function == "avg_int":
        return math.trunc(sum(present) / len(present))
    raise ValueError(function)


def range_window(rows, *, size, direction, ties, partition_by, aggregates):
    """rows: dicts with seq, t (number), the partition and value columns."""
    out = []
    stream_time = max(r["t"] for r in rows)
    for r in rows:
        def in_window(q, r=r):
            if any(q[p] != r[p] for p in partition_by):
                return False
            if direction == "preceding":
                in_range = r["t"] - size <= q["t"] <= r["t"]
                arrived = q["seq"] <= r["seq"] or q["t"] < r["t"]
            else:
                in_range = r["t"] <= q["t"] <= r["t"] + size
                arrived = q["seq"] >= r["seq"] or q["t"] > r["t"]
            return in_range and (ties == "peers" or arrived)

        members = [q for q in rows if in_window(q)]
        result = {"seq": r["seq"]}
        for name, (function, column) in aggregates.items():
            result[name] = _aggregate(function, column, members)
        if direction == "following":
            result["is_final"] = stream_time > r["t"] + size
        out.append(result)
    return out


def rows_window(rows, *, n, partition_by, aggregates):
    out = []
    for r in rows:
        same = [q for q in rows if all(q[p] == r[p] for p in partition_by) and q["seq"] <= r["seq"]]
        members = sorted(same, key=lambda q: q["seq"])[-(n + 1):]
        result = {"seq": r["seq"]}
        for name, (function, column) in aggregates.items():
            result[name] = _aggregate(function, column, members)
        out.append(result)
    return out
