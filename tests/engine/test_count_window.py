"""StreamInsight count windows: the document's examples, edge cases, every error
message, and hypothesis properties against the event-by-event reference."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamwindows import (
    InvalidIntervalError,
    InvalidParameterError,
    NullFieldError,
    OutOfOrderError,
    count_window_aggregate,
    time_weighted_average,
)

from .reference_aggregates import same
from .reference_count_window import reference_count_window
from .reference_field_dimension import is_null, rows

WINDOW = ["point_at", "window_start", "window_end", "event_count", "is_final", "emit_seq"]


def clipped_lifetimes(events):
    return list(zip(events["clipped_start"].tolist(), events["clipped_end"].tolist(), strict=True))


# The document's figures carry no numbers; these inputs follow their prose.
# Point events (second figure): points at 1, 2, 2, 4, 5, the two at 2 collocated and
# counted as one start time. With N = 2 the distinct starts 1, 2, 4, 5 give three windows:
#   [1, 3) = starts 1..2: events a, b, c (3 events: more than N), point at 2
#   [2, 5) = starts 2..4: events b, c, d, point at 4
#   [4, 6) = starts 4..5: events d, e, point at 5, provisional (a later 5 would join it)
POINTS = pd.DataFrame({"time": [1, 2, 2, 4, 5], "name": list("abcde"), "value": [10, 20, 30, 40, 50]})
# Interval events (first figure): e1, e2, e3 with increasing starts; N = 2. Window 1 spans
# the start of e1 to the start of e2 plus one tick: [1, 4); window 2 the starts of e2 and
# e3: [3, 7). Clipped: window 1 holds e1 [1, 4) and e2 [3, 4); window 2 holds e2 [3, 7)
# and e3 [6, 7). e1 is still alive in window 2 but started before it, so it is not in it.
# Time-weighted averages: (1*3 + 2*1) / 4 = 1.25 and (2*4 + 3*1) / 5 = 2.2.
INTERVALS = pd.DataFrame({"name": ["e1", "e2", "e3"], "start": [1, 3, 6], "end": [5, 8, 9],
                          "value": [1.0, 2.0, 3.0]})


@pytest.mark.parametrize(
    "frame, options, expected",
    [
        pytest.param(
            POINTS, dict(time="time", n=2),
            [(2, 1, 3, 3, True, 0, 60, ["a", "b", "c"]),
             (4, 2, 5, 3, True, 1, 90, ["b", "c", "d"]),
             (5, 4, 6, 2, False, 2, 90, ["d", "e"])],
            id="document points, N=2: 2 collocated events count once -> windows of 3, 3, 2 events",
        ),
        pytest.param(
            INTERVALS, dict(time="start", end="end", n=2),
            [(3, 1, 4, 2, True, 0, 3.0, ["e1", "e2"]),
             (6, 3, 7, 2, False, 1, 5.0, ["e2", "e3"])],
            id="document intervals e1..e3, N=2: [1,4) holds e1 e2, [3,7) holds e2 e3",
        ),
        pytest.param(
            POINTS, dict(time="time", n=1),
            [(1, 1, 2, 1, True, 0, 10, ["a"]), (2, 2, 3, 2, True, 1, 50, ["b", "c"]),
             (4, 4, 5, 1, True, 2, 40, ["d"]), (5, 5, 6, 1, False, 3, 50, ["e"])],
            id="N=1: one window per distinct start",
        ),
        pytest.param(
            POINTS, dict(time="time", n=4),
            [(5, 1, 6, 5, False, 0, 150, ["a", "b", "c", "d", "e"])],
            id="N=D: a single provisional window",
        ),
        pytest.param(POINTS, dict(time="time", n=5), [], id="D < N: no window"),
    ],
)
def test_named_cases(frame, options, expected):
    result = count_window_aggregate(frame, aggregates={"total": "sum(value)", "names": "nest(name)"}, **options)
    assert list(result.columns) == [*WINDOW, "total", "names"]
    assert rows(result) == expected


def test_document_intervals_clip_to_the_window():
    result = count_window_aggregate(
        INTERVALS, time="start", end="end", n=2,
        user_aggregates={"lifetimes": clipped_lifetimes, "twa": time_weighted_average("value")},
    )
    assert result["lifetimes"].tolist() == [[(1, 4), (3, 4)], [(3, 7), (6, 7)]]
    assert result["twa"].tolist() == pytest.approx([1.25, 2.2])


def test_document_points_have_one_tick_lifetimes():
    result = count_window_aggregate(POINTS, time="time", n=2, user_aggregates={"lifetimes": clipped_lifetimes})
    assert result["lifetimes"].tolist() == [[(1, 2), (2, 3), (2, 3)], [(2, 3), (2, 3), (4, 5)], [(4, 5), (5, 6)]]


def test_document_linq_example_count_by_start_time_window_10():
    # var agg = from w in inputStream.CountByStartTimeWindow(10) select new { sum = w.MySum(e => e.i) };
    frame = pd.DataFrame({"t": range(12), "i": range(1, 13)})

    def my_sum(events):
        return int(events["i"].sum())

    result = count_window_aggregate(frame, time="t", n=10, user_aggregates={"sum": my_sum})
    assert rows(result, ["point_at", "window_start", "window_end", "event_count", "is_final", "sum"]) == [
        (9, 0, 10, 10, True, 55), (10, 1, 11, 10, True, 65), (11, 2, 12, 10, False, 75),
    ]


def test_groups_have_their_own_windows_and_output_is_in_time_order():
    frame = pd.DataFrame({"seq": range(7), "g": ["x", "y", "x", "y", "x", "y", "y"],
                          "t": [1, 1, 2, 3, 5, 4, 4], "v": [1, 2, 3, 4, 5, 6, 7]})
    result = count_window_aggregate(frame, time="t", n=2, group_by=["g"], arrival="seq",
                                    aggregates={"n": "count(*)", "first": "first(v)"})
    assert rows(result, ["g", *WINDOW, "n", "first"]) == [
        ("x", 2, 1, 3, 2, True, 0, 2, 1),
        ("y", 3, 1, 4, 2, True, 1, 2, 2),
        ("y", 4, 3, 5, 3, False, 2, 3, 4),
        ("x", 5, 2, 6, 2, False, 3, 2, 3),
    ]


def test_timestamps_tick_is_one_microsecond_and_rate_is_per_second():
    times = pd.to_datetime(["2024-01-01 00:00:00", "2024-01-01 00:00:01", "2024-01-01 00:00:03"]).tz_localize("UTC")
    frame = pd.DataFrame({"ts": times, "v": [1.0, 2.0, 3.0]})
    result = count_window_aggregate(frame, time="ts", n=2, aggregates={"rate": "rate(*)"})
    assert result["window_end"].tolist() == [times[1] + pd.Timedelta(microseconds=1),
                                             times[2] + pd.Timedelta(microseconds=1)]
    assert str(result["point_at"].dtype) == "datetime64[ns, UTC]"
    assert result["rate"].tolist() == pytest.approx([2 / 1.000001, 2 / 2.000001])


def test_timestamp_intervals_time_weighted_average():
    base = pd.Timestamp("2024-01-01")
    frame = pd.DataFrame({
        "start": [base, base + pd.Timedelta(seconds=2)],
        "end": [base + pd.Timedelta(seconds=10), base + pd.Timedelta(seconds=4)],
        "price": [10.0, 40.0],
    })
    result = count_window_aggregate(frame, time="start", end="end", n=2,
                                    user_aggregates={"twa": time_weighted_average("price")})
    # window [0 s, 2 s + 1 us): first event clipped to 2.000001 s, second to 1 us
    assert result["twa"].tolist() == pytest.approx([(10 * 2.000001 + 40 * 0.000001) / 2.000002])


def test_time_weighted_average_skips_nulls_and_is_null_without_weight():
    frame = pd.DataFrame({"t": [1, 2, 3], "e": [4, 3, 9], "v": [None, 5.0, None]})
    result = count_window_aggregate(frame, time="t", end="e", n=1,
                                    user_aggregates={"twa": time_weighted_average("v")})
    assert [None if is_null(v) else v for v in result["twa"]] == [None, 5.0, None]


def test_empty_output_keeps_the_columns():
    result = count_window_aggregate(POINTS.iloc[:0], time="time", n=1, group_by="name",
                                    aggregates={"m": "max(value)"}, user_aggregates={"u": len})
    assert list(result.columns) == ["name", *WINDOW, "m", "u"]
    assert len(result) == 0


def test_without_arrival_the_time_order_is_the_arrival_order():
    shuffled = POINTS.iloc[[3, 0, 4, 2, 1]]
    result = count_window_aggregate(shuffled, time="time", n=2, aggregates={"names": "nest(name)"})
    # equal times keep the frame's row order: c (row 2) before b (row 1)
    assert result["names"].tolist() == [["a", "c", "b"], ["c", "b", "d"], ["d", "e"]]


# --------------------------------------------------------------------------------------
# Errors

F = "count_window_aggregate()"


@pytest.mark.parametrize(
    "options, message",
    [
        pytest.param(dict(time="missing"), f"{F}: `time` must be a column of the input (available: seq, g, t, "
                     "f, e, te, s, v); got 'missing'.", id="time not a column"),
        pytest.param(dict(time="f"), f"{F}: `time` must be an integer or timestamp column (a count window "
                     "ends one tick after its last start time, and only those types have a tick); got 'f' "
                     "(dtype float64).", id="float time has no tick"),
        pytest.param(dict(n=0), f"{F}: `n` must be an integer >= 1 (the number of distinct start times per "
                     "window); got '0'.", id="n zero"),
        pytest.param(dict(n=True), f"{F}: `n` must be an integer >= 1 (the number of distinct start times per "
                     "window); got 'True'.", id="n boolean"),
        pytest.param(dict(end="te"), f"{F}: `end` must be a column other than `time` of the same kind (int); "
                     "got 'te' (dtype datetime64[ns]).", id="end of another kind"),
        pytest.param(dict(group_by=["g", "g"]), f"{F}: `group_by` must be a list of distinct columns; "
                     "got 'g, g'.", id="group_by repeated"),
        pytest.param(dict(group_by=["nope"]), f"{F}: `group_by` must be columns of the input (available: seq, "
                     "g, t, f, e, te, s, v); got 'nope'.", id="group_by missing"),
        pytest.param(dict(arrival="nope"), f"{F}: `arrival` must be a column of the input (available: seq, g, "
                     "t, f, e, te, s, v) or None; got 'nope'.", id="arrival missing"),
        pytest.param(dict(aggregates={"c": "corr(v)"}), f"{F}: `aggregates` must be a call of corr() with 2 "
                     "argument(s) (column, column); got 'corr(v)' for output 'c'.", id="aggregate arity"),
        pytest.param(dict(aggregates={"m": "median(s)"}), f"{F}: `aggregates` must be a call of median() on a "
                     "numeric column; got 's' (dtype object) in median(s) for output 'm'.",
                     id="aggregate on a string column"),
        pytest.param(dict(aggregates={"is_final": "count(*)"}), f"{F}: `aggregates` must be keyed by distinct "
                     "output names that are neither group_by columns nor reserved (point_at, window_start, "
                     "window_end, event_count, is_final, emit_seq, clipped_start, clipped_end); got 'is_final'.",
                     id="reserved output name"),
        pytest.param(dict(aggregates={"x": "count(*)"}, user_aggregates={"x": len}), f"{F}: `user_aggregates` "
                     "must be keyed by distinct output names that are neither group_by columns nor reserved "
                     "(point_at, window_start, window_end, event_count, is_final, emit_seq, clipped_start, "
                     "clipped_end); got 'x'.", id="user aggregate name taken"),
        pytest.param(dict(user_aggregates={"u": "sum(v)"}), f"{F}: `user_aggregates` must be functions of the "
                     "window's events (output 'u'); got 'sum(v)'.", id="user aggregate not callable"),
        pytest.param(dict(user_aggregates=[len]), f"{F}: `user_aggregates` must be a mapping of output column "
                     "name to a function of the window's events; got '[<built-in function len>]'.",
                     id="user aggregates not a mapping"),
        pytest.param(dict(model=3), f"{F}: `model` must be a string or None; got '3'.", id="model not a string"),
    ],
)
def test_invalid_parameter_messages(options, message):
    frame = pd.DataFrame({"seq": [0], "g": ["a"], "t": [1], "f": [1.0], "e": [2], "te": pd.to_datetime([0]),
                          "s": ["x"], "v": [1.0]})
    arguments = dict(time="t", n=2)
    arguments.update(options)
    with pytest.raises(InvalidParameterError) as error:
        count_window_aggregate(frame, **arguments)
    assert str(error.value) == message


def test_parameter_errors_name_the_model():
    with pytest.raises(InvalidParameterError, match=r"^model 'ticks_cw': count_window_aggregate\(\): `n`"):
        count_window_aggregate(POINTS, time="time", n=-1, model="ticks_cw")


def test_out_of_order_names_model_group_values_and_positions():
    frame = pd.DataFrame({"seq": [1, 2, 3, 4], "g": ["a", "b", "a", "a"], "t": [5, 1, 7, 6]})
    with pytest.raises(OutOfOrderError) as error:
        count_window_aggregate(frame, time="t", n=2, group_by="g", arrival="seq", model="cw")
    assert str(error.value) == (
        "model 'cw': OutOfOrder: field `t` went backwards at arrival position 4 in group {'g': 'a'}: "
        "value 6 is less than the previous value 7 (arrival position 3). The field must not decrease in "
        "arrival order."
    )


def test_other_groups_may_be_behind():
    frame = pd.DataFrame({"seq": [1, 2, 3], "g": ["a", "b", "b"], "t": [5, 1, 2]})
    result = count_window_aggregate(frame, time="t", n=2, group_by="g", arrival="seq")
    assert rows(result, ["g", "point_at"]) == [("b", 2)]


@pytest.mark.parametrize(
    "frame, options, error, message",
    [
        pytest.param(
            pd.DataFrame({"t": [1, None, 3]}, dtype="Int64"), dict(),
            NullFieldError, "NULL field: `t` is NULL at arrival position 1 in group (no group_by). Every row "
            "needs a finite value.", id="NULL time (reported at its row)",
        ),
        pytest.param(
            pd.DataFrame({"seq": [2, None], "t": [1, 2]}), dict(arrival="seq"),
            NullFieldError, "NULL field: `seq` is NULL at arrival position 1 in group (no group_by). Every row "
            "needs a finite value.", id="NULL arrival",
        ),
        pytest.param(
            pd.DataFrame({"t": [1, 2], "e": pd.array([3, None], dtype="Int64")}), dict(end="e"),
            NullFieldError, "NULL field: `e` is NULL at arrival position 1 in group (no group_by). Every row "
            "needs a finite value.", id="NULL end",
        ),
        pytest.param(
            pd.DataFrame({"seq": [1, 2], "g": ["a", "b"], "t": [1, 2], "e": [3, 2]}),
            dict(end="e", group_by="g", arrival="seq"),
            InvalidIntervalError, "Invalid interval: `e` 2 is not after `t` 2 at arrival position 2 in "
            "group {'g': 'b'}. Every event needs e > t.", id="empty lifetime",
        ),
    ],
)
def test_bad_rows(frame, options, error, message):
    with pytest.raises(error) as raised:
        count_window_aggregate(frame, time="t", n=1, **options)
    assert str(raised.value) == message


# --------------------------------------------------------------------------------------
# Properties


@st.composite
def streams(draw):
    n_groups = draw(st.integers(1, 3))
    per_group = []
    for g in range(n_groups):
        size = draw(st.integers(0, 12))
        steps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 5]), min_size=size, max_size=size))
        start = draw(st.integers(-5, 5))
        times = list(np.cumsum([start, *steps])[1:]) if size else []
        per_group.append([(f"g{g}", int(t)) for t in times])
    # Interleave the groups at random, keeping each group's order.
    events = []
    cursors = [0] * n_groups
    while any(c < len(p) for c, p in zip(cursors, per_group, strict=True)):
        g = draw(st.sampled_from([i for i in range(n_groups) if cursors[i] < len(per_group[i])]))
        events.append(per_group[g][cursors[g]])
        cursors[g] += 1
    m = len(events)
    lengths = draw(st.lists(st.integers(1, 6), min_size=m, max_size=m))
    values = draw(st.lists(st.one_of(st.none(), st.integers(-9, 9)), min_size=m, max_size=m))
    frame = pd.DataFrame({
        "seq": np.arange(m) * 10,
        "g": [e[0] for e in events],
        "t": np.array([e[1] for e in events], dtype=np.int64),
        "v": pd.array(values, dtype="Int64"),
    })
    frame["e"] = frame["t"] + np.array(lengths, dtype=np.int64)
    rows_order = draw(st.permutations(range(m)))  # arrival is the seq column, not the row order
    return frame.iloc[list(rows_order)].reset_index(drop=True)


AGGREGATES = {"n": "count(*)", "s": "sum(v)", "second": "nth(v, 2)", "vs": "nest(v)", "rate": "rate(*)",
              "sd": "stddev(v)", "distinct": "distinctnest(v)"}


def lifetimes_with_positions(events):
    return list(zip(events.index.tolist(), clipped_lifetimes(events), strict=True))


@settings(max_examples=200, deadline=None)
@given(streams(), st.integers(1, 4), st.booleans(), st.booleans())
def test_matches_the_event_by_event_reference(frame, n, grouped, intervals):
    options = dict(time="t", n=n, arrival="seq", group_by=["g"] if grouped else [], end="e" if intervals else None)
    if not grouped:
        frame = frame.assign(t=frame.sort_values("seq")["t"].cummax().reindex(frame.index))
        frame["e"] = np.maximum(frame["e"], frame["t"] + 1)
    users = {"twa": time_weighted_average("v"), "lives": lifetimes_with_positions}
    result = count_window_aggregate(frame, aggregates=AGGREGATES, user_aggregates=users, **options)
    expected = reference_count_window(frame, aggregates=AGGREGATES, user_aggregates=users, **options)
    assert len(result) == len(expected)
    for got, want in zip(result.to_dict("records"), expected, strict=True):
        for column, value in want.items():
            assert same(got[column], value, rel=1e-9, abs_=1e-9), (column, got, want)
