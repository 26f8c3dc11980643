"""A deliberately simple reference: Odysseus' AGGREGATE under interval semantics
(docs/semantics.md, Odysseus section) replayed element by element, the way the
document's figure describes it, with the project's rules for groups written out
literally:

* the input is ONE stream ordered by start: an element starting before the previous
  element (any group) is OutOfOrder, and the error names both elements' groups;
* per group, a list of pieces, each with its own list of events: a new event splits its
  group's pieces at its start and end, joins the pieces inside its lifetime and fills
  the uncovered parts with new pieces of its own (so a piece exists once its end is a
  boundary of its group);
* time is shared: each element with start s then emits every group's pieces that end at
  or before s (closes, by piece start, then the group's first arrival), so ``emitted_at``
  is the start of the first element (any group) whose start reaches the piece's end;
* at the end, the open pieces are drained (``emitted_at`` None) or dropped.
"""

from __future__ import annotations

from streamwindows.errors import OutOfOrderError

from .reference_aggregates import reference_value


def _insert(pieces, event, s, e):
    out = []
    for piece in pieces:
        cuts = sorted({piece["lo"], piece["hi"], *(x for x in (s, e) if piece["lo"] < x < piece["hi"])})
        for a, b in zip(cuts, cuts[1:], strict=False):
            events = list(piece["events"])
            if s <= a and b <= e:
                events.append(event)
            out.append({"lo": a, "hi": b, "events": events})
    # the parts of [s, e) no piece covers
    cursor = s
    for piece in sorted(out, key=lambda p: p["lo"]):
        if piece["hi"] <= cursor or piece["lo"] >= e:
            continue
        if piece["lo"] > cursor:
            out.append({"lo": cursor, "hi": piece["lo"], "events": [event]})
        cursor = max(cursor, piece["hi"])
    if cursor < e:
        out.append({"lo": cursor, "hi": e, "events": [event]})
    return sorted(out, key=lambda p: p["lo"])


def reference_interval(df, *, start, end, group_by=(), arrival=None, aggregates, drain=True,
                       latency_optimized=False, dump_at_value_count=None):
    df = df.sort_values(arrival if arrival else start, kind="stable").reset_index(drop=True)
    groups = {}  # key -> {"first": position, "pieces": [...], "valid": [...]}, in first-arrival order
    out = []

    def row_for(key, lo, hi, kind, at, events):
        record = dict(zip(group_by, key, strict=True))
        record.update(window_start=lo, window_end=hi, emit_kind=kind, emitted_at=at, event_count=len(events))
        rows = [e["row"] for e in events]
        for name, spec in aggregates.items():
            record[name] = reference_value(spec, rows, duration=None if hi is None else hi - lo)
        return record

    previous = None  # (start, position, key) of the previous element, whatever its group
    for position, row in enumerate(df.to_dict("records")):
        key = tuple(row[c] for c in group_by)
        s, e = row[start], row[end]
        if previous is not None and s < previous[0]:
            raise OutOfOrderError(field=start, position=position, group=dict(zip(group_by, key, strict=True)),
                                  value=s, previous_value=previous[0], previous_position=previous[1],
                                  previous_group=dict(zip(group_by, previous[2], strict=True)))
        previous = (s, position, key)
        state = groups.setdefault(key, {"first": position, "pieces": [], "valid": []})
        event = {"row": row, "position": position}
        if latency_optimized:
            state["valid"] = [v for v in state["valid"] if v["row"][end] > s] + [event]
            out.append(row_for(key, s, None, "element", s, state["valid"]))
            continue
        state["pieces"] = _insert(state["pieces"], event, s, e)
        emitted = []  # (piece start, group first arrival, record)
        for other_key, other in groups.items():  # time is shared: every group's pieces
            for piece in [p for p in other["pieces"] if p["hi"] <= s]:
                emitted.append((piece["lo"], other["first"],
                                row_for(other_key, piece["lo"], piece["hi"], "close", s, piece["events"])))
            other["pieces"] = [p for p in other["pieces"] if p["hi"] > s]
        if dump_at_value_count and (position + 1) % dump_at_value_count == 0:
            for other_key, other in groups.items():
                keep = []
                for piece in other["pieces"]:
                    if piece["lo"] < s:  # open pieces end after s: cut at s, emit the part before
                        emitted.append((piece["lo"], other["first"],
                                        row_for(other_key, piece["lo"], s, "dump", s, piece["events"])))
                        keep.append({"lo": s, "hi": piece["hi"], "events": piece["events"]})
                    else:
                        keep.append(piece)
                other["pieces"] = keep
        out.extend(record for _, _, record in sorted(emitted, key=lambda x: x[:2]))
    if drain and not latency_optimized:
        drained = []
        for key, state in groups.items():
            for piece in state["pieces"]:
                drained.append((piece["lo"], state["first"],
                                row_for(key, piece["lo"], piece["hi"], "drain", None, piece["events"])))
        out.extend(record for _, _, record in sorted(drained, key=lambda x: x[:2]))
    for seq, record in enumerate(out):
        record["emit_seq"] = seq
    return out
