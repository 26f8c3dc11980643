"""The session-window and Flink-window references (reference_sessions.py) against examples
worked out by hand from SEMANTICS.md ruling 7.5 and Flink's window definitions, then run
on the page_views seed and checked against facts counted another way. The references
are what the macros will be compared with, so they are checked first, on cases small
enough to verify with pencil and paper."""

from __future__ import annotations

import csv
import datetime as dt
import importlib.util
import io
from collections import defaultdict
from pathlib import Path

import pytest

from .reference_sessions import reference_flink_windows, reference_sessions, reference_window_top_n

PROJECT_DIR = Path(__file__).resolve().parents[2]
T0 = dt.datetime(2024, 3, 4, 10, 0)
MICROSECOND = dt.timedelta(microseconds=1)


def at(minutes=0, seconds=0):
    return T0 + dt.timedelta(minutes=minutes, seconds=seconds)


# Events of key 'a' at 0, 10 and 25 with a gap of 10. 10 is exactly one gap after 0.
GAP_ROWS = [{"seq": 1, "t": 0, "k": "a", "v": 1}, {"seq": 2, "t": 10, "k": "a", "v": 2},
            {"seq": 3, "t": 25, "k": "a", "v": 4}]


@pytest.mark.parametrize(("gap_boundary", "expected"), [
    # 10 - 0 = 10 <= gap: the event at 10 joins, the session is [0, 10 + 10); 25 - 10 > 10
    # starts a new one. The stream's latest time, 25, is past 20: the first is final.
    pytest.param("inclusive", [
        {"k": "a", "window_start": 0, "window_end": 20, "window_time": 19, "event_count": 2, "is_final": True,
         "s": 3},
        {"k": "a", "window_start": 25, "window_end": 35, "window_time": 34, "event_count": 1, "is_final": False,
         "s": 4},
    ], id="inclusive: exactly one gap later joins"),
    # 10 - 0 = 10 is not < gap: three sessions of one event each; 25 >= 10 and 25 >= 20.
    pytest.param("exclusive", [
        {"k": "a", "window_start": 0, "window_end": 10, "window_time": 9, "event_count": 1, "is_final": True, "s": 1},
        {"k": "a", "window_start": 10, "window_end": 20, "window_time": 19, "event_count": 1, "is_final": True,
         "s": 2},
        {"k": "a", "window_start": 25, "window_end": 35, "window_time": 34, "event_count": 1, "is_final": False,
         "s": 4},
    ], id="exclusive: exactly one gap later starts a new session"),
])
def test_an_event_exactly_one_gap_later(gap_boundary, expected):
    got = reference_sessions(GAP_ROWS, gap=10, partition_by=["k"], aggregates={"s": "sum(v)"},
                             gap_boundary=gap_boundary)
    assert got == expected


def test_ties_in_time_are_ordered_by_arrival_not_list_position():
    # x and y share time 5; y is listed first but x arrived first (seq 1), so x is first
    # and z (time 7, seq 3) last. One session: 7 - 5 <= 3; [5, 7 + 3).
    rows = [{"seq": 2, "t": 5, "k": "a", "v": "y"}, {"seq": 1, "t": 5, "k": "a", "v": "x"},
            {"seq": 3, "t": 7, "k": "a", "v": "z"}]
    got = reference_sessions(rows, gap=3, partition_by="k",
                             aggregates={"f": "first(v)", "l": "last(v)", "nest_v": "nest(v)"})
    assert got == [{"k": "a", "window_start": 5, "window_end": 10, "window_time": 9, "event_count": 3,
                    "is_final": False, "f": "x", "l": "z", "nest_v": ["x", "y", "z"]}]


def test_a_none_key_is_a_key_of_its_own_sorted_first():
    # None's events at 0 and 100 are two sessions (100 > 0 + 10); 'b' at 0 is not merged
    # with None's. The latest time, 100, is past 10 but not past 110.
    rows = [{"seq": 1, "t": 0, "k": "b"}, {"seq": 2, "t": 0, "k": None}, {"seq": 3, "t": 100, "k": None}]
    got = reference_sessions(rows, gap=10, partition_by=["k"], aggregates={"n": "count(*)"})
    assert [(r["k"], r["window_start"], r["window_end"], r["n"], r["is_final"]) for r in got] == [
        (None, 0, 10, 1, True), (None, 100, 110, 1, False), ("b", 0, 10, 1, True)]


@pytest.mark.parametrize(("gap_boundary", "a_is_final"), [
    # Inclusive: an 'a' event at 10 (= window_end) could still join, so not final yet.
    pytest.param("inclusive", False, id="inclusive: latest time == window_end is not final"),
    # Exclusive: an 'a' event at 10 would start a new session: [0, 10) cannot grow.
    pytest.param("exclusive", True, id="exclusive: latest time == window_end is final"),
])
def test_is_final_at_the_boundary(gap_boundary, a_is_final):
    # 'a' has one event at 0: [0, 10). 'b' at 10 makes the stream's latest time 10.
    rows = [{"seq": 1, "t": 0, "k": "a"}, {"seq": 2, "t": 10, "k": "b"}]
    got = reference_sessions(rows, gap=10, partition_by=["k"], aggregates={}, gap_boundary=gap_boundary)
    assert [(r["k"], r["window_end"], r["is_final"]) for r in got] == [("a", 10, a_is_final), ("b", 20, False)]


def test_datetime_times_with_a_timedelta_gap():
    # 10:00 and 10:20 are 20 minutes apart (one session, ending 10:20 + 30 min = 10:50);
    # 11:00 is 40 minutes after 10:20: a second one. window_time is one microsecond
    # before the end, Spark's timestamp tick.
    rows = [{"seq": 1, "t": at(0), "k": "u"}, {"seq": 2, "t": at(20), "k": "u"}, {"seq": 3, "t": at(60), "k": "u"}]
    got = reference_sessions(rows, gap=dt.timedelta(minutes=30), partition_by=["k"], aggregates={"n": "count(*)"})
    assert got == [
        {"k": "u", "window_start": at(0), "window_end": at(50), "window_time": at(50) - MICROSECOND,
         "event_count": 2, "is_final": True, "n": 2},
        {"k": "u", "window_start": at(60), "window_end": at(90), "window_time": at(90) - MICROSECOND,
         "event_count": 1, "is_final": False, "n": 1},
    ]
    assert got[0]["window_time"] == dt.datetime(2024, 3, 4, 10, 49, 59, 999999)


def test_rate_is_over_the_sessions_duration_in_seconds():
    # Views at 0, 30 and 60 s, gap 60 s: one session [0 s, 120 s), 3 events / 120 s.
    # In integer time the same shape, gap 3: [0, 5), 2 events / 5.
    rows = [{"seq": i, "t": at(seconds=s), "k": "u"} for i, s in enumerate([0, 30, 60], start=1)]
    got = reference_sessions(rows, gap=dt.timedelta(seconds=60), partition_by=["k"], aggregates={"r": "rate(*)"})
    assert [r["r"] for r in got] == [pytest.approx(3 / 120)]
    ints = reference_sessions([{"seq": 1, "t": 0, "k": "u"}, {"seq": 2, "t": 2, "k": "u"}], gap=3,
                              partition_by=["k"], aggregates={"r": "rate(*)"})
    assert [(r["window_end"], r["r"]) for r in ints] == [(5, pytest.approx(0.4))]


def test_tumble_with_an_offset_floors_and_skips_empty_windows():
    # size 10, offset 3: start = floor((t - 3) / 10) * 10 + 3. 3 and 12 -> [3, 13);
    # 13 -> [13, 23); 35 -> [33, 43); [23, 33) holds nothing and gives no row. Key 'b' at
    # -1: floor(-4 / 10) = -1 -> [-7, 3) (a floor, not a truncation toward zero).
    # The latest time, 35, is >= 3, 13 and 23, not 43.
    rows = [{"seq": 1, "t": 3, "k": "a", "v": 1}, {"seq": 2, "t": 12, "k": "a", "v": 2},
            {"seq": 3, "t": 13, "k": "a", "v": 4}, {"seq": 4, "t": 35, "k": "a", "v": 8},
            {"seq": 5, "t": -1, "k": "b", "v": 16}]
    got = reference_flink_windows(rows, kind="tumble", size=10, offset=3, partition_by=["k"],
                                  aggregates={"s": "sum(v)"})
    assert got == [
        {"k": "a", "window_start": 3, "window_end": 13, "window_time": 12, "event_count": 2, "is_final": True, "s": 3},
        {"k": "a", "window_start": 13, "window_end": 23, "window_time": 22, "event_count": 1, "is_final": True,
         "s": 4},
        {"k": "a", "window_start": 33, "window_end": 43, "window_time": 42, "event_count": 1, "is_final": False,
         "s": 8},
        {"k": "b", "window_start": -7, "window_end": 3, "window_time": 2, "event_count": 1, "is_final": True,
         "s": 16},
    ]


def test_tumble_on_timestamps_counts_from_the_epoch():
    # 1970-01-01 was a Thursday: weekly windows start on Thursdays (2024-02-29 for Monday
    # 2024-03-04), and an offset of 4 days moves them to Mondays. window_time: end - 1 us.
    rows = [{"seq": 1, "t": dt.datetime(2024, 3, 4, 9), "k": "u"}]
    week = dt.timedelta(days=7)
    thursday = reference_flink_windows(rows, kind="tumble", size=week, partition_by="k", aggregates={})
    monday = reference_flink_windows(rows, kind="tumble", size=week, offset=dt.timedelta(days=4), partition_by="k",
                                     aggregates={})
    assert [(r["window_start"], r["window_end"]) for r in thursday] == [
        (dt.datetime(2024, 2, 29), dt.datetime(2024, 3, 7))]
    assert [(r["window_start"], r["window_time"]) for r in monday] == [
        (dt.datetime(2024, 3, 4), dt.datetime(2024, 3, 10, 23, 59, 59, 999999))]


def test_hop_with_an_offset():
    # size 10, slide 5, offset 2: starts ..., -3, 2, 7, 12; s <= t < s + 10.
    # t = 7: [2, 12) and [7, 17) ([-3, 7) ends at 7, excluded); t = 13: [7, 17), [12, 22).
    # Latest time 13: >= 12, not >= 17. rate(*) over each window's length, 10.
    rows = [{"seq": 1, "t": 7, "k": "a"}, {"seq": 2, "t": 13, "k": "a"}]
    got = reference_flink_windows(rows, kind="hop", size=10, slide=5, offset=2, partition_by=["k"],
                                  aggregates={"r": "rate(*)"})
    assert got == [
        {"k": "a", "window_start": 2, "window_end": 12, "window_time": 11, "event_count": 1, "is_final": True,
         "r": 0.1},
        {"k": "a", "window_start": 7, "window_end": 17, "window_time": 16, "event_count": 2, "is_final": False,
         "r": 0.2},
        {"k": "a", "window_start": 12, "window_end": 22, "window_time": 21, "event_count": 1, "is_final": False,
         "r": 0.1},
    ]


def test_cumulate_grows_by_steps_and_skips_empty_windows():
    # size 12, step 4: windows [base, base + 4), [base, base + 8), [base, base + 12).
    # Base 0: 1 is in all three, 6 in the last two, 9 in the last. t = 30: base 24; 30 is
    # not before 28, so [24, 28) is empty and gives no row. Latest time 30.
    rows = [{"seq": i, "t": t, "k": "a", "v": t} for i, t in enumerate([1, 6, 9, 30], start=1)]
    got = reference_flink_windows(rows, kind="cumulate", size=12, step=4, partition_by=["k"],
                                  aggregates={"s": "sum(v)", "r": "rate(*)"})
    assert [(r["window_start"], r["window_end"], r["window_time"], r["event_count"], r["is_final"], r["s"], r["r"])
            for r in got] == [
        (0, 4, 3, 1, True, 1, 1 / 4),
        (0, 8, 7, 2, True, 7, 2 / 8),
        (0, 12, 11, 3, True, 16, 3 / 12),
        (24, 32, 31, 1, False, 30, 1 / 8),
        (24, 36, 35, 1, False, 30, 1 / 12),
    ]


# Category 'a' in [0, 10): prices 5, 9, NULL, 9, 7 arriving in that order (seq 1..5); in
# [10, 20) one row whose price is NULL.
TOP_ROWS = [{"seq": 1, "t": 1, "cat": "a", "price": 5}, {"seq": 2, "t": 2, "cat": "a", "price": 9},
            {"seq": 3, "t": 3, "cat": "a", "price": None}, {"seq": 4, "t": 4, "cat": "a", "price": 9},
            {"seq": 5, "t": 5, "cat": "a", "price": 7}, {"seq": 6, "t": 11, "cat": "a", "price": None}]


def test_window_top_n_descending_ties_by_arrival():
    # Top 3 by price descending: the two 9s (seq 2 arrived before seq 4), then 7; the NULL
    # is last. The window [10, 20) keeps its only row, NULL or not.
    got = reference_window_top_n(TOP_ROWS, size=10, n=3, order_by="price", descending=True, partition_by=["cat"])
    assert [(r["window_start"], r["window_end"], r["window_time"], r["rank"], r["seq"], r["price"]) for r in got] == [
        (0, 10, 9, 1, 2, 9), (0, 10, 9, 2, 4, 9), (0, 10, 9, 3, 5, 7), (10, 20, 19, 1, 6, None)]
    # The row keeps its own columns, then the window's and the rank.
    assert list(got[0]) == ["seq", "t", "cat", "price", "window_start", "window_end", "window_time", "rank"]


def test_window_top_n_ascending_puts_nulls_last():
    # Ascending, every row kept: 5, 7, 9 (seq 2), 9 (seq 4), then the NULL (not first, as
    # Spark's ascending default would put it).
    got = reference_window_top_n(TOP_ROWS[:5], size=10, n=5, order_by="price", partition_by=["cat"])
    assert [(r["rank"], r["seq"]) for r in got] == [(1, 1), (2, 5), (3, 2), (4, 4), (5, 3)]


def test_window_top_n_over_hopping_windows():
    # size 10, slide 5: t = 3 is in [-5, 5) and [0, 10); t = 7 in [0, 10) and [5, 15);
    # t = 12 in [5, 15) and [10, 20). The cheapest of each window (n = 1, no key): 4, then
    # 2 twice (it is in two windows), then 3.
    rows = [{"seq": 1, "t": 3, "price": 4}, {"seq": 2, "t": 7, "price": 2}, {"seq": 3, "t": 12, "price": 3}]
    got = reference_window_top_n(rows, size=10, slide=5, n=1, order_by="price", partition_by=[])
    assert [(r["window_start"], r["window_end"], r["seq"], r["rank"]) for r in got] == [
        (-5, 5, 1, 1), (0, 10, 2, 1), (5, 15, 2, 1), (10, 20, 3, 1)]


def _page_views():
    with (PROJECT_DIR / "seeds" / "page_views.csv").open(newline="") as f:
        return [{"seq": int(r["view_id"]), "t": dt.datetime.fromisoformat(r["viewed_at"]), "user_id": r["user_id"],
                 "dwell_ms": int(r["dwell_ms"])} for r in csv.DictReader(f)]


def test_page_view_sessions_match_the_pauses_counted_directly():
    """Sessions at a 30-minute gap = one per user plus one per pause over 30 minutes
    (inclusive), or at least 30 minutes (exclusive); only the last session of a user can
    be open, when its last view + 30 min is not before the stream's last view."""
    views = _page_views()
    gap = dt.timedelta(minutes=30)
    by_user = defaultdict(list)
    for view in sorted(views, key=lambda v: v["seq"]):
        by_user[view["user_id"]].append(view["t"])
    pauses = [b - a for times in by_user.values() for a, b in zip(times, times[1:], strict=False)]
    assert min(pauses) >= dt.timedelta(0)  # arrival order is time order within a user
    exact = sum(p == gap for p in pauses)
    longer = sum(p > gap for p in pauses)
    assert exact >= 24 and sum(p == dt.timedelta(0) for p in pauses) >= 10  # the boundary and ties occur
    latest = max(v["t"] for v in views)

    inclusive = reference_sessions(views, gap=gap, partition_by=["user_id"], aggregates={"n": "count(*)"})
    exclusive = reference_sessions(views, gap=gap, partition_by=["user_id"], aggregates={"n": "count(*)"},
                                   gap_boundary="exclusive")
    assert len(inclusive) == len(by_user) + longer
    assert len(exclusive) == len(by_user) + longer + exact
    for sessions in (inclusive, exclusive):
        assert sum(s["event_count"] for s in sessions) == len(views)
        assert all(s["n"] == s["event_count"] for s in sessions)
    assert sum(not s["is_final"] for s in inclusive) == sum(t[-1] + gap >= latest for t in by_user.values())
    assert sum(not s["is_final"] for s in exclusive) == sum(t[-1] + gap > latest for t in by_user.values())


def test_page_views_seed_is_what_its_script_writes():
    """scripts/make_clickstream_seed.py regenerates the committed seed byte for byte."""
    spec = importlib.util.spec_from_file_location("make_clickstream_seed",
                                                  PROJECT_DIR / "scripts" / "make_clickstream_seed.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    text = io.StringIO()
    script.write_csv(script.page_views(), text)
    assert text.getvalue() == (PROJECT_DIR / "seeds" / "page_views.csv").read_text()
