"""A deliberately simple reference: Odysseus' AGGREGATE under interval semantics
(SEMANTICS.md section 5) replayed element by element, the way the document's figure
describes it: per group a list of pieces, each with its own list of events; a new event
splits the pieces it overlaps at its start and end, joins the pieces inside its
lifetime and fills the uncovered parts with new pieces of its own."""

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
    groups = {}  # key -> {"first": position, "pieces": [...], "valid": [...], "last": (start, position)}
    out = []

    def row_for(key, lo, hi, kind, at, events):
        record = dict(zip(group_by, key, strict=True))
        record.update(window_start=lo, window_end=hi, emit_kind=kind, emitted_at=at, event_count=len(events))
        rows = [e["row"] for e in events]
        for name, spec in aggregates.items():
            record[name] = reference_value(spec, rows, duration=None if hi is None else hi - lo)
        return record

    previous = None
    for position, row in enumerate(df.to_dict("records")):
        key = tuple(row[c] for c in group_by)
        s, e = row[start], row[end]
        state = groups.setdefault(key, {"first": position, "pieces": [], "valid": [], "last": None})
        last = previous if dump_at_value_count else state["last"]
        if last is not None and s < last[0]:
            raise OutOfOrderError(field=start, position=position, group=dict(zip(group_by, key, strict=True)),
                                  value=s, previous_value=last[0], previous_position=last[1])
        state["last"] = previous = (s, position)
        event = {"row": row, "position": position}
        if latency_optimized:
            state["valid"] = [v for v in state["valid"] if v["row"][end] > s] + [event]
            out.append(row_for(key, s, None, "element", s, state["valid"]))
            continue
        state["pieces"] = _insert(state["pieces"], event, s, e)
        emitted = []  # (piece start, group first arrival, record)
        closed = [p for p in state["pieces"] if p["hi"] <= s]
        state["pieces"] = [p for p in state["pieces"] if p["hi"] > s]
        for piece in closed:
            emitted.append((piece["lo"], state["first"], row_for(key, piece["lo"], piece["hi"], "close", s,
                                                                   piece["events"])))
        if dump_at_value_count and (position + 1) % dump_at_value_count == 0:
            for other_key, other in groups.items():
                keep = []
                for piece in other["pieces"]:
                    if piece["lo"] < s:
                        hi = min(piece["hi"], s)
                        emitted.append((piece["lo"], other["first"],
                                        row_for(other_key, piece["lo"], hi, "dump", s, piece["events"])))
                        if piece["hi"] > s:
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
