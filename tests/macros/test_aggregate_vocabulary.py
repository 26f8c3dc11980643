"""The SQL aggregate vocabulary (macros/aggregates) against the engine's range kernels
(streamwindows.range_aggregates), and the partial aggregates (macros/odysseus).

- Every compile-time message of the vocabulary and of partial_aggregate /
  merge_partial_aggregates, triggered once.
- Cross-path: every Odysseus function computed by rows_window_aggregate,
  range_window_aggregate (ties='arrival' merges two frames, ties='peers' one) and
  fenl_aggregate gives, on the same random data, what the engine's kernels give over
  the same row ranges.
- Partial aggregates: random data split into random panes; merging the partial rows
  gives the direct computation (the engine's kernels over each whole group).
- Sketches: the approximate mergeable variants stay within their documented bounds.

Each configuration is compiled once by dbt; the SQL then runs on every generated input
through temp views.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamwindows.range_aggregates import parse_aggregates
from tests.conftest import compile_error, compiled, spark_examples

# --------------------------------------------------------------------------------------
# Compile-time errors

WEATHER = "ref('stg_sqlstream__weather_readings')"
WEATHER_COLUMNS = "stream_windows.stg_sqlstream__weather_readings (seq, rowtime, city, temp)"
BIDS = "ref('auction_bids')"
PARTIALS = "ref('auction_bid_partials')"
KNOWN = (
    "avg, completeness, corr, count, cov, distinctnest, first, last, max, median, min, nest, nth, rate, stddev, "
    "sum, var"
)


def rows_call(aggregates: str) -> str:
    return f"{{{{ rows_window_aggregate({WEATHER}, rows=2, arrival_order='seq', aggregates={aggregates}) }}}}"


def range_call(aggregates: str, **extra: str) -> str:
    args = {"time_column": "'rowtime'", "range": "'1 day'", "arrival_order": "'seq'", **extra}
    rendered = ", ".join(f"{k}={v}" for k, v in args.items() if v is not None)
    return f"{{{{ range_window_aggregate({WEATHER}, {rendered}, aggregates={aggregates}) }}}}"


def partial_call(aggregates: str, pane: str = "{'time_column': 'date_time', 'size': '10 minutes'}",
                 arrival_order: str | None = "'seq'") -> str:
    order = f", arrival_order={arrival_order}" if arrival_order else ""
    return f"{{{{ partial_aggregate({BIDS}, group_by=['bidder'], pane={pane}, aggregates={aggregates}{order}) }}}}"


ERROR_CASES = [
    pytest.param(
        range_call("{'t': 'mode(temp)'}"),
        f"range_window_aggregate(): `aggregates['t']` must be a known function: one of {KNOWN}; got 'mode(temp)'.",
        id="unknown function",
    ),
    pytest.param(
        range_call("{'t': 'approx_count_distinct(temp)'}"),
        "range_window_aggregate(): `aggregates['t']` must be a known function: one of avg,",
        id="sketches only in partial aggregates",
    ),
    pytest.param(
        rows_call("{'c': 'corr(temp)'}"),
        "rows_window_aggregate(): `aggregates['c']` must be a call of corr() with 2 arguments (column, column); "
        "got 'corr(temp)'.",
        id="corr with one column",
    ),
    pytest.param(
        rows_call("{'n': 'nth(temp)'}"),
        "rows_window_aggregate(): `aggregates['n']` must be a call of nth() with 2 arguments "
        "(column, n: a whole number >= 1); got 'nth(temp)'.",
        id="nth without n",
    ),
    pytest.param(
        rows_call("{'n': 'nth(temp, 0)'}"),
        "rows_window_aggregate(): `aggregates['n']` must be a call of nth() whose n is a whole number >= 1 "
        "(1-based); got 'nth(temp, 0)'.",
        id="nth with n = 0",
    ),
    pytest.param(
        rows_call("{'n': 'count(temp, city)'}"),
        "rows_window_aggregate(): `aggregates['n']` must be a call of count() with 1 argument (column or *); "
        "got 'count(temp, city)'.",
        id="count with two columns",
    ),
    pytest.param(
        rows_call("{'s': 'median(*)'}"),
        "rows_window_aggregate(): `aggregates['s']` must be function(column); only count and rate take *; "
        "got 'median(*)'.",
        id="star outside count and rate",
    ),
    pytest.param(
        rows_call("{'r': 'rate(*)'}"),
        "rows_window_aggregate(): `aggregates['r']` must be an aggregate that rows_window_aggregate() can compute "
        "(rate() divides by the window's duration, which this window kind does not have); got 'rate(*)'.",
        id="rate over a ROWS window",
    ),
    pytest.param(
        "{{ fenl_aggregate(ref('stg_fenl__purchases'), entity='entity', time_column='purchased_at', "
        "arrival_order='seq', aggregates={'s': 'nest(amount)'}) }}",
        "fenl_aggregate(): `aggregates['s']` must be an aggregate that fenl_aggregate() can compute (nest(): its "
        "sliding and cron windows keep no arrival order or row count); got 'nest(amount)'.",
        id="fenl with an order-dependent function",
    ),
    pytest.param(
        "{{ fenl_aggregate(ref('stg_fenl__purchases'), entity='entity', time_column='purchased_at', "
        "arrival_order='seq', aggregates={'r': 'rate(amount)'}) }}",
        "fenl_aggregate(): `aggregates['r']` must be an aggregate that fenl_aggregate() can compute (rate() divides",
        id="fenl with rate",
    ),
    pytest.param(
        range_call("{'t': 'sum(city)'}"),
        "range_window_aggregate(): `aggregates['t']` must be a call of sum() on numeric columns (city is string); "
        "got 'sum(city)'.",
        id="sum of a string column",
    ),
    pytest.param(
        rows_call("{'c': 'cov(temp, city)'}"),
        "rows_window_aggregate(): `aggregates['c']` must be a call of cov() on numeric columns (city is string); "
        "got 'cov(temp, city)'.",
        id="cov with a string second column",
    ),
    pytest.param(
        rows_call("{'c': 'corr(temp, humidity)'}"),
        f"rows_window_aggregate(): `aggregates['c']` must be a column of {WEATHER_COLUMNS}; got 'humidity'.",
        id="corr with a missing second column",
    ),
    pytest.param(
        range_call("{'n': 'nth(temp, 2)'}", ties="'peers'", arrival_order=None),
        "range_window_aggregate(): `arrival_order` must be a column giving arrival order for nth(); got 'None'.",
        id="nth without an arrival order",
    ),
    pytest.param(
        partial_call("{'m': 'max(price)'}", pane="{'size': '10 minutes'}"),
        "partial_aggregate(): `pane` must be {'time_column': <column>, 'size': <interval or number>}, a column name "
        "holding a pane key, or none; got",
        id="partial with a pane without a time column",
    ),
    pytest.param(
        partial_call("{'m': 'max(price)'}", pane="{'time_column': 'date_time', 'size': '1 month'}"),
        "partial_aggregate(): `pane['size']` must be a number >= 0 (numeric RANGE) or an interval",
        id="partial with a pane of a month",
    ),
    pytest.param(
        partial_call("{'r': 'rate(*)'}", pane="'auction'"),
        "partial_aggregate(): `aggregates['r']` must be an aggregate that partial_aggregate() can compute (rate() "
        "divides by the window's duration, which this window kind does not have); got 'rate(*)'.",
        id="partial rate over panes given as a column",
    ),
    pytest.param(
        partial_call("{'f': 'first(auction)'}", arrival_order=None),
        "partial_aggregate(): `arrival_order` must be a column giving arrival order for first(); got 'None'.",
        id="partial first without an arrival order",
    ),
    pytest.param(
        partial_call("{'m': 'median(date_time)'}"),
        "partial_aggregate(): `aggregates['m']` must be a call of median() on numeric columns (date_time is "
        "timestamp); got 'median(date_time)'.",
        id="partial median of a timestamp",
    ),
    pytest.param(
        f"{{{{ merge_partial_aggregates({PARTIALS}, group_by=['bidder'], aggregates={{'q': 'count(*)'}}) }}}}",
        "merge_partial_aggregates(): `aggregates['q']` must be a column of stream_windows.auction_bid_partials (",
        id="merge of a state the partials lack",
    ),
    pytest.param(
        f"{{{{ merge_partial_aggregates({PARTIALS}, group_by=['bidder'], aggregates={{'max_price': 'max(price)'}}, "
        "window={'size': '1 hour', 'advance': '2 hours'}) }}",
        "merge_partial_aggregates(): `window` must be {'size': <interval or number>, 'advance': <interval or number>} "
        "with 0 < advance <= size, both intervals (time panes) or both whole numbers (numeric panes); got",
        id="merge into windows advancing by more than their size",
    ),
    pytest.param(
        f"{{{{ merge_partial_aggregates({PARTIALS}, group_by=['bidder'], aggregates={{'max_price': 'max(price)'}}, "
        "window={'size': 3, 'advance': '1 hour'}) }}",
        "merge_partial_aggregates(): `window` must be {'size': <interval or number>",
        id="merge into windows of a number and an interval",
    ),
]


@pytest.mark.parametrize(("inline", "message"), ERROR_CASES)
def test_invalid_aggregate_fails_at_compile_time(project_build, inline, message):
    assert message in compile_error(inline)


# --------------------------------------------------------------------------------------
# Cross-path: SQL macros vs the engine's range kernels

WINDOW_AGGREGATES = {
    "min_v": "min(v)", "max_v": "max(v)", "sum_v": "sum(v)", "count_v": "count(v)", "rows_n": "count(*)",
    "avg_v": "avg(v)", "median_v": "median(v)", "stddev_v": "stddev(v)", "var_v": "var(v)",
    "corr_vw": "corr(v, w)", "cov_vw": "cov(v, w)", "first_s": "first(s)", "last_v": "last(v)",
    "nth_s": "nth(s, 2)", "nth_v": "nth(v, 3)", "nest_s": "nest(s)", "distinctnest_s": "distinctnest(s)",
    "completeness_s": "completeness(s)", "rate_n": "rate(*)", "rate_v": "rate(v)",
}
WITHOUT_RATE = {k: v for k, v in WINDOW_AGGREGATES.items() if not v.startswith("rate")}
ORDER_FREE = {k: WINDOW_AGGREGATES[k] for k in ("median_v", "stddev_v", "var_v", "corr_vw", "cov_vw", "sum_v")}
SCHEMA = "seq int, t int, p string, v int, w double, s string"


def as_sql(aggregates: dict[str, str]) -> str:
    return "{" + ", ".join(f"'{k}': '{v}'" for k, v in aggregates.items()) + "}"


@st.composite
def streams(draw, max_rows=25):
    n = draw(st.integers(1, max_rows))
    t = draw(st.integers(0, 5))
    rows = []
    for i in range(n):
        t += draw(st.integers(0, 3))
        rows.append({
            "seq": i + 1, "t": t, "p": draw(st.sampled_from(["a", "b"])),
            "v": draw(st.one_of(st.none(), st.integers(-20, 20))),
            "w": draw(st.one_of(st.none(), st.integers(-5, 5).map(float))),
            "s": draw(st.one_of(st.none(), st.sampled_from(["x", "y", "z"]))),
        })
    return rows


def frame_of(rows) -> dict[str, object]:
    return {
        "v": pd.array([r["v"] for r in rows], dtype="Int64"),
        "w": np.array([np.nan if r["w"] is None else r["w"] for r in rows], dtype=np.float64),
        "s": np.array([r["s"] for r in rows], dtype=object),
    }


def normalized(value):
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, list):
        return [normalized(v) for v in value]
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, np.generic):
        return value.item()
    return value


def engine_values(aggregates, columns, lo, hi, duration=None) -> dict[str, list]:
    dtypes = {name: pd.Series(values).dtype for name, values in columns.items()}
    out = {}
    for agg in parse_aggregates(aggregates, dtypes, "test"):
        result = agg.compute(columns, np.asarray(lo), np.asarray(hi), durations=duration)
        out[agg.name] = [normalized(v) for v in pd.Series(result, dtype=object)]
    return out


def same(got, expected) -> bool:
    got, expected = normalized(got), normalized(expected)
    if isinstance(expected, float) and isinstance(got, (int, float)):
        return got == pytest.approx(expected, rel=1e-9, abs=1e-9)
    return got == expected


def run_sql(spark, sql: str, rows, view: str = "sw_input") -> list[dict]:
    data = [(r["seq"], r["t"], r["p"], r["v"], r["w"], r["s"]) for r in rows]
    spark.createDataFrame(data, SCHEMA).createOrReplaceTempView(view)
    return [r.asDict() for r in spark.sql(sql).collect()]


def window_ranges(part, kind, size, direction, ties):
    """[lo, hi) of each row of one partition (rows in arrival order; t never decreases)."""
    times = [r["t"] for r in part]
    lo, hi = [], []
    for k, r in enumerate(part):
        if kind == "rows":
            lo.append(max(0, k - size))
            hi.append(k + 1)
        elif direction == "preceding":
            lo.append(next(i for i, t in enumerate(times) if t >= r["t"] - size))
            hi.append(k + 1 if ties == "arrival" else max(i for i, t in enumerate(times) if t <= r["t"]) + 1)
        else:
            lo.append(k if ties == "arrival" else min(i for i, t in enumerate(times) if t >= r["t"]))
            hi.append(max(i for i, t in enumerate(times) if t <= r["t"] + size) + 1)
    return lo, hi


def assert_window_matches_engine(spark, sql, stream, aggregates, *, kind, size, direction="preceding",
                                 ties="arrival", partition="p"):
    got = {r["seq"]: r for r in run_sql(spark, sql, stream)}
    assert sorted(got) == [r["seq"] for r in stream]
    groups = sorted({r[partition] for r in stream}) if partition else [None]
    for group in groups:
        part = [r for r in stream if partition is None or r[partition] == group]
        lo, hi = window_ranges(part, kind, size, direction, ties)
        expected = engine_values(aggregates, frame_of(part), lo, hi, duration=float(size))
        for i, r in enumerate(part):
            for name in aggregates:
                assert same(got[r["seq"]][name], expected[name][i]), (r["seq"], name, got[r["seq"]][name],
                                                                     expected[name][i], part)


WINDOW_CASES = [
    pytest.param("range", 3, "preceding", "arrival", ["p"], id="range preceding, arrival ties (two frames merged)"),
    pytest.param("range", 0, "preceding", "arrival", [], id="range preceding, zero size, global (peers frame only)"),
    pytest.param("range", 2, "preceding", "peers", ["p"], id="range preceding, SQL peers"),
    pytest.param("range", 2, "following", "arrival", ["p"], id="range following, arrival ties"),
    pytest.param("rows", 2, None, None, ["p"], id="rows 2 preceding"),
]


@pytest.mark.parametrize(("kind", "size", "direction", "ties", "partition_by"), WINDOW_CASES)
def test_every_function_matches_the_engine_kernels(spark, kind, size, direction, ties, partition_by):
    if kind == "rows":
        aggregates = WITHOUT_RATE
        sql = compiled(f"{{{{ rows_window_aggregate('sw_input', rows={size}, partition_by={partition_by!r}, "
                       f"arrival_order='seq', aggregates={as_sql(aggregates)}) }}}}")
    else:
        aggregates = WINDOW_AGGREGATES
        sql = compiled(f"{{{{ range_window_aggregate('sw_input', time_column='t', range={size}, "
                       f"direction='{direction}', ties='{ties}', partition_by={partition_by!r}, "
                       f"arrival_order='seq', aggregates={as_sql(aggregates)}) }}}}")

    @settings(max_examples=spark_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        assert_window_matches_engine(spark, sql, stream, aggregates, kind=kind, size=size, direction=direction,
                                     ties=ties, partition=partition_by[0] if partition_by else None)

    check()


def test_fenl_cumulative_order_free_functions_match_the_engine(spark):
    sql = compiled("{{ fenl_aggregate('sw_input', entity='p', time_column='t', arrival_order='seq', "
                   f"aggregates={as_sql(ORDER_FREE)}) }}}}")

    @settings(max_examples=spark_examples(8), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        got = {r["seq"]: r for r in run_sql(spark, sql, stream)}
        for group in {r["p"] for r in stream}:
            part = [r for r in stream if r["p"] == group]
            n = len(part)
            expected = engine_values(ORDER_FREE, frame_of(part), [0] * n, list(range(1, n + 1)))
            for i, r in enumerate(part):
                for name in ORDER_FREE:
                    assert same(got[r["seq"]][name], expected[name][i]), (r["seq"], name)

    check()


def test_variance_keeps_precision_with_a_large_offset(spark):
    """1e9 + a spread of 2: the (count, mean, M2) parts merged by Chan's formula keep the variance to a relative
    1e-7 (the means are Spark's sum / count); a sum-of-squares formula would lose every digit (1e19 sums)."""
    sql = compiled("{{ range_window_aggregate('sw_input', time_column='t', range=10, arrival_order='seq', "
                   "aggregates={'var_w': 'var(w)', 'cov_ww': 'cov(w, w)'}) }}")
    stream = [{"seq": i + 1, "t": i // 2, "p": "a", "v": None, "w": 1e9 + (i % 3), "s": None} for i in range(12)]
    got = {r["seq"]: r for r in run_sql(spark, sql, stream)}
    assert got[12]["var_w"] == pytest.approx(np.var([1e9 + (i % 3) for i in range(12)], ddof=1), rel=1e-6)
    assert got[12]["cov_ww"] == pytest.approx(got[12]["var_w"], rel=1e-6)


def test_rate_over_a_timestamp_range_is_per_second(spark):
    """RATE over RANGE '3 minutes': the window's duration is its size, 180 seconds."""
    sql = compiled("{{ range_window_aggregate('sw_times', time_column='t', range='3 minutes', partition_by='p', "
                   "arrival_order='seq', aggregates={'rate_n': 'rate(*)', 'rate_v': 'rate(v)'}) }}")
    spark.sql(
        "create or replace temp view sw_times as select seq, "
        "timestamp'2024-01-01 00:00:00' + make_dt_interval(0, 0, m, 0) as t, 'a' as p, v "
        "from values (1, 0, 1), (2, 1, null), (3, 2, 3), (4, 5, 4) as r(seq, m, v)"
    )
    got = {r["seq"]: (r["rate_n"], r["rate_v"]) for r in spark.sql(sql).collect()}
    assert got == {1: (1 / 180, 1 / 180), 2: (2 / 180, 1 / 180), 3: (3 / 180, 2 / 180), 4: (2 / 180, 2 / 180)}


def test_fenl_error_lists_only_the_functions_it_computes(project_build):
    message = compile_error(
        "{{ fenl_aggregate(ref('stg_fenl__purchases'), entity='entity', time_column='purchased_at', "
        "arrival_order='seq', aggregates={'s': 'mode(amount)'}) }}"
    )
    assert ("fenl_aggregate(): `aggregates['s']` must be a known function: one of avg, corr, count, cov, first, last, "
            "max, median, min, stddev, sum, var; got 'mode(amount)'.") in message


# --------------------------------------------------------------------------------------
# Partial aggregates: merge(partials over random panes) == direct computation

PARTIAL_AGGREGATES = WITHOUT_RATE


@st.composite
def paned_streams(draw):
    rows = draw(streams(max_rows=30))
    panes = draw(st.integers(1, 4))
    for r in rows:
        r["pane_id"] = draw(st.integers(0, panes - 1))
    return rows


def merge_call(aggregates: dict[str, str]) -> str:
    return f"{{{{ merge_partial_aggregates('sw_partials', group_by=['p'], aggregates={as_sql(aggregates)}) }}}}"


def test_merged_partials_equal_the_direct_aggregate(spark):
    partial_sql = compiled(f"{{{{ partial_aggregate('sw_input', group_by=['p'], pane='pane_id', arrival_order='seq', "
                           f"aggregates={as_sql(PARTIAL_AGGREGATES)}) }}}}")
    merge_sql = compiled(f"{{{{ merge_partial_aggregates('sw_partials', group_by=['p'], "
                         f"aggregates={as_sql(PARTIAL_AGGREGATES)}) }}}}")

    @settings(max_examples=spark_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=paned_streams())
    def check(stream):
        data = [(r["seq"], r["t"], r["p"], r["v"], r["w"], r["s"], r["pane_id"]) for r in stream]
        spark.createDataFrame(data, SCHEMA + ", pane_id int").createOrReplaceTempView("sw_input")
        spark.sql(partial_sql).createOrReplaceTempView("sw_partials")
        got = {r["p"]: r.asDict() for r in spark.sql(merge_sql).collect()}
        assert sorted(got) == sorted({r["p"] for r in stream})
        for group, row in got.items():
            part = [r for r in stream if r["p"] == group]
            expected = engine_values(PARTIAL_AGGREGATES, frame_of(part), [0], [len(part)])
            for name in PARTIAL_AGGREGATES:
                assert same(row[name], expected[name][0]), (group, name, row[name], expected[name][0])

    check()


def test_merged_rate_divides_by_the_span_of_the_merged_panes(spark):
    """Time panes of a numeric column: RATE = count / (last pane end - first pane start)."""
    aggregates = {"rate_n": "rate(*)", "rate_v": "rate(v)", "rows_n": "count(*)"}
    partial_sql = compiled("{{ partial_aggregate('sw_input', group_by=['p'], pane={'time_column': 't', 'size': 4}, "
                           f"aggregates={as_sql(aggregates)}) }}}}")
    merge_sql = compiled(merge_call(aggregates))

    @settings(max_examples=spark_examples(6), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        run_sql(spark, "select 1", stream)
        spark.sql(partial_sql).createOrReplaceTempView("sw_partials")
        got = {r["p"]: r.asDict() for r in spark.sql(merge_sql).collect()}
        times = [r["t"] for r in stream]
        span = (max(times) // 4 * 4 + 4) - (min(times) // 4 * 4)
        for group, row in got.items():
            part = [r for r in stream if r["p"] == group]
            assert row["rows_n"] == len(part)
            assert row["rate_n"] == pytest.approx(len(part) / span)
            assert row["rate_v"] == pytest.approx(sum(r["v"] is not None for r in part) / span)

    check()


def test_sketches_stay_within_their_error_bounds(spark):
    """HLL (lgConfigK 12: relative standard error 1.6%) and KLL (k 200: rank error about 1.7%),
    merged over 10 panes of 20,000 rows; checked at 3x the bound."""
    spark.sql(
        "create or replace temp view sw_input as select id as seq, id % 10 as pane_id, 'all' as p, "
        "cast(pmod(id * 7919, 5003) as int) as v, cast(pmod(id * 104729, 9973) as double) as w from range(20000)"
    )
    aggregates = {"distinct_v": "approx_count_distinct(v)", "median_w": "approx_median(w)"}
    partial_sql = compiled(f"{{{{ partial_aggregate('sw_input', group_by=['p'], pane='pane_id', "
                           f"aggregates={as_sql(aggregates)}) }}}}")
    merge_sql = compiled(merge_call(aggregates))
    spark.sql(partial_sql).createOrReplaceTempView("sw_partials")
    (row,) = spark.sql(merge_sql).collect()
    exact = spark.sql(
        "select (select count(distinct v) from sw_input) as distinct_v, "
        f"(select avg(cast(w <= {row['median_w']} as double)) from sw_input) as rank_of_median"
    ).collect()[0]
    assert row["distinct_v"] == pytest.approx(exact["distinct_v"], rel=3 * 0.016)
    assert exact["rank_of_median"] == pytest.approx(0.5, abs=3 * 0.017)


def test_sketches_of_a_group_whose_values_are_all_null_give_null(spark):
    """approx_median and approx_count_distinct over a group whose values are all NULL:
    NULL and 0 for that group (as the exact median and count(distinct) give), and the
    other groups their values; the merge does not fail."""
    spark.sql(
        "create or replace temp view sw_input as select * from values "
        "(1, 1, 'empty', cast(null as double)), (2, 2, 'empty', cast(null as double)), "
        "(3, 1, 'full', 4.0D), (4, 2, 'full', 6.0D), (5, 2, 'full', 5.0D) as t(seq, pane_id, p, w)"
    )
    aggregates = {"median_w": "approx_median(w)", "distinct_w": "approx_count_distinct(w)"}
    partial_sql = compiled(f"{{{{ partial_aggregate('sw_input', group_by=['p'], pane='pane_id', "
                           f"aggregates={as_sql(aggregates)}) }}}}")
    spark.sql(partial_sql).createOrReplaceTempView("sw_partials")
    got = {r["p"]: (r["median_w"], r["distinct_w"]) for r in spark.sql(compiled(merge_call(aggregates))).collect()}
    assert got == {"empty": (None, 0), "full": (5.0, 3)}


# --------------------------------------------------------------------------------------
# Partial aggregates merged into hopping windows (the panes technique)


def windowed_merge_call(aggregates: dict[str, str], size, advance) -> str:
    return (f"{{{{ merge_partial_aggregates('sw_partials', group_by=['p'], aggregates={as_sql(aggregates)}, "
            f"window={{'size': {size!r}, 'advance': {advance!r}}}) }}}}")


# The tumbling cases are `proof` (make test-all): in `make test` the hopping case merges
# several panes into each window, overlapping windows sharing panes.
@pytest.mark.parametrize(("pane", "size", "advance"), [
    pytest.param(2, 6, 2, id="hopping 6 by 2 over panes of 2"),
    pytest.param(1, 3, 3, id="tumbling 3 over panes of 1", marks=pytest.mark.proof),
    pytest.param(2, 4, 4, id="tumbling 4 over panes of 2", marks=pytest.mark.proof)])
def test_panes_merged_into_hopping_windows_equal_each_window_directly(spark, pane, size, advance):
    """Every function (RATE over the window's length): each window [w, w + size), w a
    multiple of advance holding at least one row, equals the engine's kernels over the
    rows whose t lies in it."""
    aggregates = {**PARTIAL_AGGREGATES, "rate_n": "rate(*)"}
    partial_sql = compiled(f"{{{{ partial_aggregate('sw_input', group_by=['p'], "
                           f"pane={{'time_column': 't', 'size': {pane}}}, arrival_order='seq', "
                           f"aggregates={as_sql(aggregates)}) }}}}")
    merge_sql = compiled(windowed_merge_call(aggregates, size, advance))

    @settings(max_examples=spark_examples(8), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        run_sql(spark, "select 1", stream)
        spark.sql(partial_sql).createOrReplaceTempView("sw_partials")
        got = {(r["p"], r["window_start"]): r.asDict() for r in spark.sql(merge_sql).collect()}
        expected_keys = set()
        for r in stream:
            first = -(-(r["t"] - size + 1) // advance) * advance
            expected_keys |= {(r["p"], w) for w in range(first, r["t"] + 1, advance)}
        assert sorted(got) == sorted(expected_keys)
        for (group, start), row in got.items():
            assert row["window_end"] == start + size
            part = [r for r in stream if r["p"] == group and start <= r["t"] < start + size]
            expected = engine_values(aggregates, frame_of(part), [0], [len(part)], duration=float(size))
            for name in aggregates:
                assert same(row[name], expected[name][0]), (group, start, name, row[name], expected[name][0])

    check()


def test_hourly_panes_merged_into_3_hour_windows_equal_spark_window(spark):
    """Timestamp panes: the windows and values of Spark's window(ts, '3 hours', '1 hour')."""
    spark.sql(
        "create or replace temp view sw_input as select id as seq, cast(id % 7 as string) as p, "
        "timestamp_seconds(1700000000 + id * 797) as ts, cast(pmod(id * 7919, 1000) as bigint) as v from range(3000)"
    )
    aggregates = {"sum_v": "sum(v)", "avg_v": "avg(v)", "max_v": "max(v)", "rows_n": "count(*)"}
    partial_sql = compiled(f"{{{{ partial_aggregate('sw_input', group_by=['p'], "
                           f"pane={{'time_column': 'ts', 'size': '1 hour'}}, aggregates={as_sql(aggregates)}) }}}}")
    spark.sql(partial_sql).createOrReplaceTempView("sw_partials")
    merged = spark.sql(compiled(windowed_merge_call(aggregates, "3 hours", "1 hour")))
    direct = spark.sql(
        "select p, window.start as window_start, window.end as window_end, sum(v) as sum_v, avg(v) as avg_v, "
        "max(v) as max_v, count(*) as rows_n from sw_input group by p, window(ts, '3 hours', '1 hour')"
    )
    assert direct.count() > 3000 / 5
    assert sorted(map(tuple, merged.collect())) == sorted(map(tuple, direct.collect()))


def test_a_pane_that_does_not_divide_the_window_fails_naming_it(spark):
    run_sql(spark, "select 1", [{"seq": 1, "t": 5, "p": "a", "v": 1, "w": None, "s": None}])
    spark.sql(compiled("{{ partial_aggregate('sw_input', group_by=['p'], pane={'time_column': 't', 'size': 4}, "
                       "aggregates={'n': 'count(*)'}) }}")).createOrReplaceTempView("sw_partials")
    with pytest.raises(Exception, match=r"a pane of length 4 does not divide the window size 6 and advance 2 "
                                        r"\(units\), at pane_start 4, p a"):
        spark.sql(compiled(windowed_merge_call({"n": "count(*)"}, 6, 2))).collect()
