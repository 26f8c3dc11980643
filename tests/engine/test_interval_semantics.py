"""Odysseus AGGREGATE under interval semantics: the document's count example, the
latency-optimized and dump modes, every error message, and hypothesis properties against
the element-by-element reference."""

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
    interval_aggregate,
)

from .reference_aggregates import same
from .reference_field_dimension import rows
from .reference_interval import reference_interval

OUT = ["window_start", "window_end", "emit_kind", "emitted_at", "emit_seq", "event_count"]


# The document's figure, with t1..t4 = 10, 20, 30, 40: four events valid before t1 form
# the piece of count 4; the new event is valid over [t1, t4); the two events that make
# the piece of count 2 over [t2, t3) start at t2, so in a stream ordered by start they
# arrive after the new one. Result: [t1,t2) 1, [t2,t3) 3, [t3,t4) 1. The piece of count 4
# is emitted when the event starting at t1 arrives ("every following event must have a
# time stamp higher than t1"); [t1,t2) when the events starting at t2 arrive; the rest
# only at the end (drain).
FIGURE = pd.DataFrame({"start": [0, 0, 0, 0, 10, 20, 20], "end": [5, 5, 5, 5, 40, 30, 30],
                       "price": [1, 2, 3, 4, 5, 6, 7]})


@pytest.mark.parametrize(
    "frame, options, expected",
    [
        pytest.param(
            FIGURE, dict(),
            [(0, 5, "close", 10, 0, 4, 4), (10, 20, "close", 20, 1, 1, 1),
             (20, 30, "drain", None, 2, 3, 3), (30, 40, "drain", None, 3, 1, 1)],
            id="document count example: [t1,t2) 1, [t2,t3) 3, [t3,t4) 1",
        ),
        pytest.param(
            FIGURE, dict(drain=False),
            [(0, 5, "close", 10, 0, 4, 4), (10, 20, "close", 20, 1, 1, 1)],
            id="drain=False: open pieces are not emitted",
        ),
        pytest.param(
            pd.DataFrame({"start": [0, 0, 5], "end": [10, 5, 10]}), dict(),
            [(0, 5, "close", 5, 0, 2, 2), (5, 10, "drain", None, 1, 2, 2)],
            id="equal neighbours are not merged",
        ),
        pytest.param(
            pd.DataFrame({"start": [0, 5], "end": [2, 7]}), dict(),
            [(0, 2, "close", 5, 0, 1, 1), (5, 7, "drain", None, 1, 1, 1)],
            id="no row for the empty interval between events",
        ),
        pytest.param(
            pd.DataFrame({"start": [0, 2, 2], "end": [4, 3, 9]}), dict(),
            [(0, 2, "close", 2, 0, 1, 1), (2, 3, "drain", None, 1, 3, 3), (3, 4, "drain", None, 2, 2, 2),
             (4, 9, "drain", None, 3, 1, 1)],
            id="an event closes the pieces ending at its start",
        ),
    ],
)
def test_named_cases(frame, options, expected):
    result = interval_aggregate(frame, start="start", end="end", aggregates={"counter": "count(*)"}, **options)
    assert list(result.columns) == [*OUT, "counter"]
    assert rows(result) == expected


def test_document_example_other_aggregates():
    result = interval_aggregate(
        FIGURE, start="start", end="end",
        aggregates={"max_price": "max(price)", "min_price": "min(price)", "prices": "nest(price)",
                    "median": "median(price)", "rate": "rate(*)", "third": "nth(price, 3)"},
    )
    assert rows(result, ["max_price", "min_price", "prices", "median", "rate", "third"]) == [
        (4, 1, [1, 2, 3, 4], 2.5, 0.8, 3),
        (5, 5, [5], 5.0, 0.1, None),
        (7, 5, [5, 6, 7], 6.0, 0.3, 7),
        (5, 5, [5], 5.0, 0.1, None),
    ]


def test_latency_optimized_emits_one_row_per_element():
    # As the document's second output: two elements start at 40, each gets its own row.
    frame = pd.DataFrame({"start": [10, 20, 40, 40, 50], "end": [30, 45, 60, 50, 55]})
    result = interval_aggregate(frame, start="start", end="end", aggregates={"counter": "count(*)"},
                                latency_optimized=True)
    assert rows(result, ["window_start", "window_end", "emit_kind", "emitted_at", "emit_seq", "counter"]) == [
        (10, None, "element", 10, 0, 1),
        (20, None, "element", 20, 1, 2),
        (40, None, "element", 40, 2, 2),  # [10, 30) has ended; [20, 45) and the first 40
        (40, None, "element", 40, 3, 3),
        (50, None, "element", 50, 4, 2),  # [40, 60) and itself: [40, 50) ends at 50, [20, 45) before
    ]
    default = interval_aggregate(frame, start="start", end="end", aggregates={"counter": "count(*)"})
    assert rows(default, ["window_start", "window_end", "counter"]) == [
        (10, 20, 1), (20, 30, 2), (30, 40, 1), (40, 45, 3), (45, 50, 2), (50, 55, 2), (55, 60, 1),
    ]  # one row for the pieces starting at 40, not one per element


def test_latency_optimized_per_group_and_rate_is_null():
    frame = pd.DataFrame({"g": ["a", "b", "a"], "start": [1, 2, 3], "end": [5, 3, 4]})
    result = interval_aggregate(frame, start="start", end="end", group_by="g", latency_optimized=True,
                                aggregates={"n": "count(*)", "rate": "rate(*)"})
    assert rows(result, ["g", "window_start", "n", "rate"]) == [("a", 1, 1, None), ("b", 2, 1, None),
                                                                ("a", 3, 2, None)]


def test_groups_share_time():
    frame = pd.DataFrame({"g": ["a", "b", "b", "a"], "start": [0, 1, 8, 9], "end": [5, 3, 9, 10]})
    result = interval_aggregate(frame, start="start", end="end", group_by=["g"], aggregates={"n": "count(*)"})
    # b's element at 8 closes a's piece [0, 5) too (time is global); on one element by
    # piece start, then the group's first arrival; a's element at 9 closes b's [8, 9)
    assert rows(result, ["g", *OUT]) == [
        ("a", 0, 5, "close", 8, 0, 1),
        ("b", 1, 3, "close", 8, 1, 1),
        ("b", 8, 9, "close", 9, 2, 1),
        ("a", 9, 10, "drain", None, 3, 1),
    ]


# docs/semantics.md, "Groups share time": group A's event [0, 10), then group B's [20, 25).
A_THEN_B = pd.DataFrame({"seq": [1, 2], "g": ["A", "B"], "start": [0, 20], "end": [10, 25], "v": [3, 4]})


@pytest.mark.parametrize(
    "frame, options, expected",
    [
        pytest.param(
            A_THEN_B, dict(drain=False),
            [("A", 0, 10, "close", 20, 0, 1, 3)],
            id="A then B, drain=False: B's event emits A's piece at 20, B's stays open",
        ),
        pytest.param(
            A_THEN_B, dict(drain=True),
            [("A", 0, 10, "close", 20, 0, 1, 3), ("B", 20, 25, "drain", None, 1, 1, 4)],
            id="A then B, drain=True: A's piece is a close at 20, not a drain",
        ),
        pytest.param(
            pd.DataFrame({"seq": [1, 2, 3], "g": ["A", "B", "B"], "start": [0, 5, 12], "end": [10, 6, 13],
                          "v": [3, 4, 5]}),
            dict(drain=False),
            [("A", 0, 10, "close", 12, 0, 1, 3), ("B", 5, 6, "close", 12, 1, 1, 4)],
            id="one element closes two groups' pieces: by piece start",
        ),
        pytest.param(
            pd.DataFrame({"seq": [1, 2, 3, 4, 5], "g": ["A", "B", "B", "A", "B"], "start": [0, 5, 10, 10, 30],
                          "end": [20, 10, 12, 15, 31], "v": [3, 4, 5, 6, 7]}),
            dict(drain=False),
            [("B", 5, 10, "close", 10, 0, 1, 4), ("A", 0, 10, "close", 10, 1, 1, 3),
             ("A", 10, 15, "close", 30, 2, 2, 9), ("B", 10, 12, "close", 30, 3, 1, 5),
             ("A", 15, 20, "close", 30, 4, 1, 3)],
            id="A's [0, 10) exists once A's own element at 10 arrives, after B's at 10: emitted after B's",
        ),
    ],
)
def test_groups_share_time_named(frame, options, expected):
    result = interval_aggregate(frame, start="start", end="end", group_by="g", arrival="seq",
                                aggregates={"s": "sum(v)"}, **options)
    assert rows(result, ["g", *OUT, "s"]) == expected
    reference = reference_interval(frame, start="start", end="end", group_by=["g"], arrival="seq",
                                   aggregates={"s": "sum(v)"}, **options)
    assert [tuple(r[c] for c in ["g", *OUT, "s"]) for r in reference] == expected


def test_dump_at_value_count_cuts_every_group():
    frame = pd.DataFrame({"g": ["a", "b", "a", "b"], "start": [0, 2, 4, 6], "end": [10, 8, 5, 7]})
    result = interval_aggregate(frame, start="start", end="end", group_by="g", dump_at_value_count=2,
                                aggregates={"n": "count(*)"})
    # 2nd element (b, start 2): a's [0, 10) is cut at 2 and [0, 2) dumped. a's element at 4
    # splits [2, 10) and closes [2, 4). 4th element (b, start 6) closes b's [2, 6) and a's
    # [4, 5) (time is shared); a's [5, 10) is cut at 6. On one element: by piece start.
    assert rows(result, ["g", *OUT]) == [
        ("a", 0, 2, "dump", 2, 0, 1),
        ("a", 2, 4, "close", 4, 1, 1),
        ("b", 2, 6, "close", 6, 2, 1),
        ("a", 4, 5, "close", 6, 3, 2),
        ("a", 5, 6, "dump", 6, 4, 1),
        ("a", 6, 10, "drain", None, 5, 1),
        ("b", 6, 7, "drain", None, 6, 2),
        ("b", 7, 8, "drain", None, 7, 1),
    ]


def test_dump_every_element():
    result = interval_aggregate(FIGURE, start="start", end="end", dump_at_value_count=1,
                                aggregates={"n": "count(*)"})
    assert rows(result, ["window_start", "window_end", "emit_kind", "emitted_at", "n"]) == [
        (0, 5, "close", 10, 4), (10, 20, "close", 20, 1), (20, 30, "drain", None, 3), (30, 40, "drain", None, 1),
    ]


def test_timestamps_and_rate_per_second():
    base = pd.Timestamp("2024-05-01", tz="Europe/Paris")
    frame = pd.DataFrame({"start": [base, base + pd.Timedelta(seconds=2)],
                          "end": [base + pd.Timedelta(seconds=4), base + pd.Timedelta(seconds=3)]})
    result = interval_aggregate(frame, start="start", end="end", aggregates={"rate": "rate(*)"})
    assert result["window_start"].tolist() == [base, base + pd.Timedelta(seconds=2), base + pd.Timedelta(seconds=3)]
    assert str(result["emitted_at"].dtype) == "datetime64[ns, Europe/Paris]"
    assert result["rate"].tolist() == pytest.approx([0.5, 2.0, 1.0])


def test_float_times():
    frame = pd.DataFrame({"start": [0.5, 0.75], "end": [1.25, 1.0]})
    result = interval_aggregate(frame, start="start", end="end", aggregates={"n": "count(*)"})
    assert rows(result, ["window_start", "window_end", "n"]) == [(0.5, 0.75, 1), (0.75, 1.0, 2), (1.0, 1.25, 1)]


def test_empty_input_keeps_the_columns():
    result = interval_aggregate(FIGURE.iloc[:0], start="start", end="end", aggregates={"m": "max(price)"})
    assert list(result.columns) == [*OUT, "m"]
    assert len(result) == 0


# --------------------------------------------------------------------------------------
# Errors

F = "interval_aggregate()"


@pytest.mark.parametrize(
    "options, message",
    [
        pytest.param(dict(start="s"), f"{F}: `start` must be an integer, float or timestamp column; got 's' "
                     "(dtype object).", id="start not a time"),
        pytest.param(dict(end="missing"), f"{F}: `end` must be a column of the input (available: g, t0, t1, f, "
                     "s, v); got 'missing'.", id="end missing"),
        pytest.param(dict(end="f"), f"{F}: `end` must be a column other than `start` of the same kind (int); "
                     "got 'f' (dtype float64).", id="end of another kind"),
        pytest.param(dict(drain="yes"), f"{F}: `drain` must be True or False; got 'yes'.", id="drain"),
        pytest.param(dict(latency_optimized=1), f"{F}: `latency_optimized` must be True or False; got '1'.",
                     id="latency_optimized"),
        pytest.param(dict(dump_at_value_count=0), f"{F}: `dump_at_value_count` must be an integer >= 1 or "
                     "None; got '0'.", id="dump zero"),
        pytest.param(dict(dump_at_value_count=2, latency_optimized=True), f"{F}: `dump_at_value_count` must be "
                     "None when latency_optimized=True (every element emits already); got '2'.",
                     id="dump with latency_optimized"),
        pytest.param(dict(aggregates={"c": "cov(v)"}), f"{F}: `aggregates` must be a call of cov() with 2 "
                     "argument(s) (column, column); got 'cov(v)' for output 'c'.", id="cov arity"),
        pytest.param(dict(aggregates={"n": "nth(v)"}), f"{F}: `aggregates` must be a call of nth() with 2 "
                     "argument(s) (column, positive_integer); got 'nth(v)' for output 'n'.", id="nth without n"),
        pytest.param(dict(aggregates={"v": "var(s)"}), f"{F}: `aggregates` must be a call of var() on a "
                     "numeric column; got 's' (dtype object) in var(s) for output 'v'.", id="var of strings"),
        pytest.param(dict(aggregates={"emitted_at": "count(*)"}), f"{F}: `aggregates` must be keyed by distinct "
                     "output names that are neither group_by columns nor reserved (window_start, window_end, "
                     "emit_kind, emitted_at, emit_seq, event_count); got 'emitted_at'.", id="reserved name"),
        pytest.param(dict(group_by="emit_seq"), f"{F}: `group_by` must be columns of the input (available: g, "
                     "t0, t1, f, s, v); got 'emit_seq'.", id="group_by missing"),
    ],
)
def test_invalid_parameter_messages(options, message):
    frame = pd.DataFrame({"g": ["a"], "t0": [1], "t1": [2], "f": [2.0], "s": ["x"], "v": [1.0]})
    arguments = dict(start="t0", end="t1", aggregates={"n": "count(*)"})
    arguments.update(options)
    with pytest.raises(InvalidParameterError) as error:
        interval_aggregate(frame, **arguments)
    assert str(error.value) == message


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(dict(), id="default"),
        pytest.param(dict(drain=False), id="drain=False"),
        pytest.param(dict(latency_optimized=True), id="latency_optimized"),
        pytest.param(dict(dump_at_value_count=3), id="dump_at_value_count"),
    ],
)
def test_out_of_order_across_groups_names_both_groups(options):
    # docs/semantics.md: after A's [0, 10) and B's [20, 25), an event of A starting at 15
    frame = pd.concat([A_THEN_B, pd.DataFrame({"seq": [3], "g": ["A"], "start": [15], "end": [18], "v": [5]})],
                      ignore_index=True)
    with pytest.raises(OutOfOrderError) as error:
        interval_aggregate(frame, start="start", end="end", group_by="g", arrival="seq",
                           aggregates={"n": "count(*)"}, model="bids", **options)
    assert str(error.value) == (
        "model 'bids': OutOfOrder: field `start` went backwards at arrival position 3 in group "
        "{'g': 'A'}: value 15 is less than the previous value 20 (arrival position 2, group {'g': 'B'}). The "
        "field must not decrease in arrival order."
    )
    e = error.value
    assert (e.position, e.seq, e.group, e.value, e.previous_value, e.previous_position, e.previous_group) == (
        2, 3, {"g": "A"}, 15, 20, 1, {"g": "B"}
    )


def test_out_of_order_in_another_group_than_the_previous():
    # In order within each group (a: 5, 6; b: 1), not as one stream.
    frame = pd.DataFrame({"seq": [1, 2, 3], "g": ["a", "b", "a"], "start": [5, 1, 6], "end": [9, 2, 7]})
    with pytest.raises(OutOfOrderError) as error:
        interval_aggregate(frame, start="start", end="end", group_by="g", arrival="seq",
                           aggregates={"n": "count(*)"})
    assert str(error.value) == (
        "OutOfOrder: field `start` went backwards at arrival position 2 in group {'g': 'b'}: value 1 "
        "is less than the previous value 5 (arrival position 1, group {'g': 'a'}). The field must not "
        "decrease in arrival order."
    )


@pytest.mark.parametrize(
    "frame, error, message",
    [
        pytest.param(pd.DataFrame({"start": [1, 2], "end": [3, 1]}), InvalidIntervalError,
                     "Invalid interval: `end` 1 is not after `start` 2 at arrival position 1 in group (no "
                     "group_by). Every event needs end > start.", id="end before start"),
        pytest.param(pd.DataFrame({"start": [1.0, np.nan], "end": [3.0, 4.0]}), NullFieldError,
                     "NULL field: `start` is NULL at arrival position 1 in group (no group_by). Every row needs "
                     "a finite value.", id="NULL start"),
        pytest.param(pd.DataFrame({"start": [1.0, 2.0], "end": [3.0, np.inf]}), NullFieldError,
                     "NULL field: `end` is not finite (inf) at arrival position 1 in group (no group_by). Every "
                     "row needs a finite value.", id="infinite end"),
    ],
)
def test_bad_rows(frame, error, message):
    with pytest.raises(error) as raised:
        interval_aggregate(frame, start="start", end="end", aggregates={"n": "count(*)"})
    assert str(raised.value) == message


# --------------------------------------------------------------------------------------
# Properties


@st.composite
def streams(draw, globally_ordered=True):
    """Events of up to three groups, shuffled rows with a `seq` arrival column. Starts
    never decrease in arrival order across the whole stream (ties, steps and gaps longer
    than any lifetime), or, with ``globally_ordered=False``, only within each group (so
    the stream may or may not be in order)."""
    m = draw(st.integers(0, 14))
    groups = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=m, max_size=m))
    steps = draw(st.lists(st.sampled_from([0, 0, 1, 1, 2, 3, 9]), min_size=m, max_size=m))
    lengths = draw(st.lists(st.integers(1, 8), min_size=m, max_size=m))
    values = draw(st.lists(st.one_of(st.none(), st.integers(-9, 9)), min_size=m, max_size=m))
    if globally_ordered:
        starts = (draw(st.integers(-3, 3)) + np.cumsum(steps)).tolist()
    else:  # ordered within each group only
        last = {}
        starts = []
        for g, step in zip(groups, steps, strict=True):
            last[g] = last.get(g, draw(st.integers(0, 6))) + step
            starts.append(last[g])
    frame = pd.DataFrame({
        "seq": np.arange(m, dtype=np.int64),
        "g": groups,
        "start": np.array(starts, dtype=np.int64),
        "v": pd.array(values, dtype="Int64"),
    })
    frame["end"] = frame["start"] + np.array(lengths, dtype=np.int64)
    return frame.iloc[list(draw(st.permutations(range(m))))].reset_index(drop=True)


AGGREGATES = {"n": "count(*)", "s": "sum(v)", "mx": "max(v)", "first": "first(v)", "second": "nth(v, 2)",
              "vs": "nest(v)", "distinct": "distinctnest(v)", "rate": "rate(*)", "median": "median(v)",
              "var": "var(v)", "full": "completeness(v)"}


def check(frame, **options):
    result = interval_aggregate(frame, aggregates=AGGREGATES, start="start", end="end", arrival="seq", **options)
    expected = reference_interval(frame, aggregates=AGGREGATES, start="start", end="end", arrival="seq", **options)
    assert len(result) == len(expected), (result, expected)
    for got, want in zip(result.to_dict("records"), expected, strict=True):
        for column, value in want.items():
            assert same(got[column], value, rel=1e-9, abs_=1e-9), (column, got, want)


@settings(max_examples=300, deadline=None)
@given(streams(), st.booleans(), st.booleans())
def test_matches_the_reference(frame, grouped, drain):
    if not grouped:
        frame = frame.assign(g="a")
    check(frame, group_by=["g"], drain=drain)


@settings(max_examples=150, deadline=None)
@given(streams())
def test_latency_optimized_matches_the_reference(frame):
    check(frame, group_by=["g"], latency_optimized=True)


@settings(max_examples=200, deadline=None)
@given(streams(), st.integers(1, 4), st.booleans())
def test_dump_matches_the_reference(frame, k, drain):
    check(frame, group_by=["g"], dump_at_value_count=k, drain=drain)


@settings(max_examples=200, deadline=None)
@given(streams(globally_ordered=False), st.sampled_from([
    dict(drain=True), dict(drain=False), dict(latency_optimized=True), dict(dump_at_value_count=2),
]))
def test_out_of_order_matches_the_reference(frame, options):
    """Streams ordered within each group only: the engine fails exactly where the
    replay of the one stream does (position, values and both groups), else agrees."""
    try:
        reference_interval(frame, aggregates={}, start="start", end="end", arrival="seq", group_by=["g"],
                           **options)
    except OutOfOrderError as expected:
        with pytest.raises(OutOfOrderError) as actual:
            interval_aggregate(frame, aggregates={}, start="start", end="end", arrival="seq", group_by=["g"],
                               **options)
        got, want = actual.value, expected
        assert (got.position, got.value, got.previous_value, got.previous_position, got.group,
                got.previous_group) == (want.position, want.value, want.previous_value, want.previous_position,
                                        want.group, want.previous_group)
        return
    check(frame, group_by=["g"], **options)


def test_membership_chunks_give_the_same_answer(monkeypatch):
    import streamwindows.interval_semantics as module

    rng = np.random.default_rng(3)
    starts = np.sort(rng.integers(0, 200, 300))
    frame = pd.DataFrame({"start": starts, "end": starts + rng.integers(1, 40, 300), "v": rng.normal(size=300),
                          "g": rng.choice(["x", "y"], 300)})
    aggregates = {"n": "count(*)", "mx": "max(v)", "vs": "nest(v)", "var": "var(v)"}
    whole = interval_aggregate(frame, start="start", end="end", group_by="g", aggregates=aggregates)
    monkeypatch.setattr(module, "_MEMBERSHIP_LIMIT", 7)
    chunked = interval_aggregate(frame, start="start", end="end", group_by="g", aggregates=aggregates)
    pd.testing.assert_frame_equal(whole, chunked)
