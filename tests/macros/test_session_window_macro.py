"""The SQL that session_window_aggregate generates, run by Spark on random streams
(ties in time, NULL keys, events exactly one gap apart), equals the reference written
from the contract's ruling on sessions (tests/engine/reference_sessions.py), under
both gap boundaries; and under 'inclusive' it gives the sessions of Spark's own
`session_window` with the same aggregates."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import compiled, spark_examples
from tests.engine.reference_aggregates import same
from tests.engine.reference_sessions import reference_sessions

AGGREGATES = {
    "n_all": "count(*)", "n_v": "count(v)", "sum_v": "sum(v)", "min_v": "min(v)", "max_v": "max(v)",
    "avg_v": "avg(v)", "first_v": "first(v)", "last_v": "last(v)", "nest_v": "nest(v)", "second_v": "nth(v, 2)",
    "rate_all": "rate(*)",
}
AGGREGATES_SQL = "{" + ", ".join(f"'{k}': '{v}'" for k, v in AGGREGATES.items()) + "}"
BASE = dt.datetime(2024, 1, 1)
GAP = 3


@st.composite
def streams(draw):
    """Times in steps of 0 to 4 (a gap of 3 is met exactly, crossed and missed), keys
    a, b and NULL, NULL values."""
    n = draw(st.integers(1, 30))
    steps = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    times, t = [], draw(st.integers(0, 3))
    for step in steps:
        t += step
        times.append(t)
    arrival = draw(st.permutations(range(1, n + 1)))
    return [{"seq": arrival[i], "t": times[i], "p": draw(st.sampled_from(["a", "b", None])),
             "v": draw(st.one_of(st.none(), st.integers(-9, 9)))} for i in range(n)]


def load(spark, stream, *, as_timestamp: bool):
    frame = spark.createDataFrame([(r["seq"], r["t"], r["p"], r["v"]) for r in stream],
                                  "seq int, t int, p string, v int")
    if as_timestamp:  # t counts minutes after BASE
        frame = frame.selectExpr("seq", "timestamp'2024-01-01 00:00:00' + make_dt_interval(0, 0, t, 0) as t", "p", "v")
    frame.createOrReplaceTempView("sw_sessions_input")


def as_times(stream):
    return [{**r, "t": BASE + dt.timedelta(minutes=r["t"])} for r in stream]


def session_sql(gap: str, boundary: str) -> str:
    return compiled(
        "{{ stream_windows.session_window_aggregate('sw_sessions_input', time_column='t', gap=" + gap
        + f", partition_by='p', arrival_order='seq', gap_boundary='{boundary}', aggregates={AGGREGATES_SQL}) }}}}"
    )


def assert_sessions_equal(got, expected):
    order = sorted(got, key=lambda r: (r["p"] is not None, r["p"] or "", r["window_start"]))
    assert len(order) == len(expected), (order, expected)
    for row, want in zip(order, expected, strict=True):
        for name, value in want.items():
            if name in ("avg_v", "rate_all") and value is not None:
                assert same(row[name], value), (name, row, want)
            else:
                assert row[name] == value, (name, row, want)


@pytest.mark.parametrize("boundary", ["inclusive", "exclusive"])
def test_sessions_over_numbers_match_the_reference(spark, boundary):
    sql = session_sql(str(GAP), boundary)

    @settings(max_examples=spark_examples(15), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        load(spark, stream, as_timestamp=False)
        got = [r.asDict() for r in spark.sql(sql).collect()]
        expected = reference_sessions(stream, gap=GAP, partition_by=["p"], aggregates=AGGREGATES, gap_boundary=boundary)
        assert_sessions_equal(got, expected)

    check()


def test_sessions_over_timestamps_match_the_reference_and_spark_session_window(spark):
    """Timestamps with an interval gap: the reference's rows (window_time a microsecond
    before window_end), and Spark's session_window over the same events grouped by key:
    the same sessions, counts and sums."""
    sql = session_sql("'3 minutes'", "inclusive")
    spark_sql = """
        select p, session_window.start as window_start, session_window.end as window_end,
               count(*) as n_all, sum(v) as sum_v, min(v) as min_v, max(v) as max_v
        from sw_sessions_input
        group by p, session_window(t, '3 minutes')
    """

    @settings(max_examples=spark_examples(15), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        load(spark, stream, as_timestamp=True)
        got = [r.asDict() for r in spark.sql(sql).collect()]
        expected = reference_sessions(as_times(stream), gap=dt.timedelta(minutes=GAP), partition_by=["p"],
                                      aggregates=AGGREGATES)
        assert_sessions_equal(got, expected)
        native = [r.asDict() for r in spark.sql(spark_sql).collect()]
        mine = [{k: r[k] for k in ("p", "window_start", "window_end", "n_all", "sum_v", "min_v", "max_v")} for r in got]
        key = lambda r: (r["p"] is not None, r["p"] or "", r["window_start"])  # noqa: E731
        assert sorted(mine, key=key) == sorted(native, key=key)

    check()


def test_two_events_at_one_arrival_position_fail_naming_it(spark):
    load(spark, [{"seq": 1, "t": 0, "p": "a", "v": 1}, {"seq": 1, "t": 0, "p": "a", "v": 2}], as_timestamp=False)
    with pytest.raises(Exception, match=r"values are unique .*got seq 1 twice in p=a"):
        spark.sql(session_sql(str(GAP), "inclusive")).collect()


def test_a_null_time_fails_naming_the_row(spark):
    frame = spark.createDataFrame([(1, None, "a", 1)], "seq int, t int, p string, v int")
    frame.createOrReplaceTempView("sw_sessions_input")
    with pytest.raises(Exception, match=r"`time_column` t is NULL at p=a, arrival position 1"):
        spark.sql(session_sql(str(GAP), "inclusive")).collect()
