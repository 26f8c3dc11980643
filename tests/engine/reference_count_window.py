"""A deliberately simple reference: StreamInsight count windows (SEMANTICS.md section 3)
replayed event by event, with Python lists. Integer times only (tick 1)."""

from __future__ import annotations

import pandas as pd

from streamwindows.errors import OutOfOrderError

from .reference_aggregates import reference_value


def reference_count_window(df, *, time, n, end=None, group_by=(), arrival=None, aggregates=None,
                           user_aggregates=None):
    aggregates = aggregates or {}
    user_aggregates = user_aggregates or {}
    df = df.sort_values(arrival if arrival else time, kind="stable").reset_index(drop=True)
    groups = {}  # key -> {"first": position, "starts": [distinct starts], "events": [...], "windows": [...]}
    for position, row in enumerate(df.to_dict("records")):
        key = tuple(row[c] for c in group_by)
        state = groups.setdefault(key, {"first": position, "starts": [], "events": [], "windows": []})
        start = row[time]
        if state["starts"] and start < state["starts"][-1]:
            previous = state["events"][-1]
            raise OutOfOrderError(field=time, position=position, group=dict(zip(group_by, key, strict=True)),
                                  value=start, previous_value=previous["row"][time],
                                  previous_position=previous["position"])
        event = {"row": row, "position": position}
        state["events"].append(event)
        if not state["starts"] or start != state["starts"][-1]:
            state["starts"].append(start)
            if len(state["starts"]) >= n:
                # A new distinct start completes the window of the last n distinct starts.
                first_start = state["starts"][-n]
                state["windows"].append({
                    "start": first_start,
                    "last": start,
                    "events": [e for e in state["events"] if e["row"][time] >= first_start],
                })
        elif state["windows"] and state["windows"][-1]["last"] == start:
            state["windows"][-1]["events"].append(event)  # a repeated start joins the last window

    out = []
    for key, state in groups.items():
        for k, window in enumerate(state["windows"]):
            window_end = window["last"] + 1
            rows = [e["row"] for e in window["events"]]
            record = dict(zip(group_by, key, strict=True))
            record.update(
                point_at=window["last"], window_start=window["start"], window_end=window_end,
                event_count=len(rows), is_final=k < len(state["windows"]) - 1,
            )
            for name, spec in aggregates.items():
                record[name] = reference_value(spec, rows, duration=window_end - window["start"])
            if user_aggregates:
                events = pd.DataFrame(rows, columns=df.columns)
                events.index = pd.Index([e["position"] for e in window["events"]], name="arrival_position")
                lifetime_end = events[end] if end else events[time] + 1
                events["clipped_start"] = events[time].clip(lower=window["start"])
                events["clipped_end"] = lifetime_end.clip(upper=window_end)
                for name, function in user_aggregates.items():
                    record[name] = function(events)
            record["_order"] = (window["last"], state["first"])
            out.append(record)
    out.sort(key=lambda r: r.pop("_order"))
    for seq, record in enumerate(out):
        record["emit_seq"] = seq
    return out
