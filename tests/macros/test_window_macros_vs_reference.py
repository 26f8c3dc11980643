"""The SQL that range_window_aggregate / rows_window_aggregate generate, run by Spark
on random streams (ties, NULLs, several partitions, empty frames), equals the naive
reference of SEMANTICS.md section 1. Each configuration is compiled once by dbt; the
compiled SQL then runs on every generated input through a temp view."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import MANY_EXAMPLES, compiled, spark_examples
from tests.macros.reference_sqlstream import range_window, rows_window

AGGREGATES = {
    "min_v": ("min", "v"), "max_v": ("max", "v"), "sum_v": ("sum", "v"), "count_v": ("count", "v"),
    "rows_n": ("count", "*"), "avg_v": ("avg", "v"), "first_v": ("first", "v"), "last_v": ("last", "v"),
}
AGGREGATES_SQL = "{" + ", ".join(f"'{k}': '{f}({c})'" for k, (f, c) in AGGREGATES.items()) + "}"
BASE_TIME = dt.datetime(2024, 1, 1)


@st.composite
def streams(draw):
    n = draw(st.integers(1, 25))
    steps = draw(st.lists(st.integers(0, 3), min_size=n, max_size=n))
    times, t = [], draw(st.integers(0, 5))
    for step in steps:
        t += step
        times.append(t)
    return [
        {
            "seq": i + 1,
            "t": times[i],
            "p": draw(st.sampled_from(["a", "b", "c"])),
            "v": draw(st.one_of(st.none(), st.integers(-20, 20))),
        }
        for i in range(n)
    ]


def run_on(spark, sql: str, stream, *, as_timestamp: bool):
    schema = "seq int, t int, p string, v int"
    data = [(r["seq"], r["t"], r["p"], r["v"]) for r in stream]
    frame = spark.createDataFrame(data, schema)
    if as_timestamp:  # t counts minutes after BASE_TIME
        frame = frame.selectExpr("seq", "timestamp'2024-01-01 00:00:00' + make_dt_interval(0, 0, t, 0) as t", "p", "v")
    frame.createOrReplaceTempView("sw_input")
    return {r["seq"]: r.asDict() for r in spark.sql(sql).collect()}


def assert_matches(got, expected, names):
    assert sorted(got) == [e["seq"] for e in expected]
    for e in expected:
        row = got[e["seq"]]
        for name in names:
            if name == "avg_v" and e[name] is not None and row[name] is not None:
                assert row[name] == pytest.approx(e[name]), (e["seq"], name, row, e)
            else:
                assert row[name] == e[name], (e["seq"], name, row, e)


RANGE_CASES = [
    pytest.param("preceding", "arrival", ["p"], 3, id="preceding, arrival ties, partitioned"),
    pytest.param("preceding", "arrival", ["p"], 0, id="preceding, arrival ties, zero size (peers only)"),
    pytest.param("preceding", "arrival", [], 2, id="preceding, arrival ties, global"),
    pytest.param("preceding", "peers", ["p"], 3, id="preceding, SQL peers"),
    pytest.param("following", "arrival", ["p"], 3, id="following, arrival ties"),
    pytest.param("following", "arrival", [], 0, id="following, arrival ties, zero size, global"),
    pytest.param("following", "peers", ["p"], 2, id="following, SQL peers"),
]


def check_numeric_range_window(spark, direction, ties, partition_by, size, examples):
    sql = compiled(
        "{{ range_window_aggregate('sw_input', time_column='t', range=" + str(size)
        + f", direction='{direction}', ties='{ties}', partition_by={partition_by!r}, "
        + f"arrival_order='seq', aggregates={AGGREGATES_SQL}) }}}}"
    )

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        got = run_on(spark, sql, stream, as_timestamp=False)
        expected = range_window(stream, size=size, direction=direction, ties=ties,
                                partition_by=partition_by, aggregates=AGGREGATES)
        names = list(AGGREGATES) + (["is_final"] if direction == "following" else [])
        assert_matches(got, expected, names)

    check()


@pytest.mark.parametrize(("direction", "ties", "partition_by", "size"), RANGE_CASES)
def test_numeric_range_window_matches_reference(spark, direction, ties, partition_by, size):
    check_numeric_range_window(spark, direction, ties, partition_by, size, examples=spark_examples(12))


@pytest.mark.proof
def test_range_window_matches_reference_on_many_streams(spark):
    """SQLstream's family on many more streams: FOLLOWING (provisional rows) per
    partition with arrival ties, the case with the most moving parts. Guarded in `make
    test` by test_numeric_range_window_matches_reference (the same check over every
    direction, tie mode and partitioning, 12 streams each, 6 in `make test`)."""
    check_numeric_range_window(spark, "following", "arrival", ["p"], 3, examples=MANY_EXAMPLES)


def test_interval_range_over_timestamps_matches_reference(spark):
    sql = compiled(
        "{{ range_window_aggregate('sw_input', time_column='t', range='3 minutes', partition_by='p', "
        f"arrival_order='seq', aggregates={AGGREGATES_SQL}, integer_avg=true) }}}}"
    )
    aggregates = {**AGGREGATES, "avg_v": ("avg_int", "v")}

    @settings(max_examples=spark_examples(12), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        got = run_on(spark, sql, stream, as_timestamp=True)
        expected = range_window(stream, size=3, direction="preceding", ties="arrival",
                                partition_by=["p"], aggregates=aggregates)
        assert_matches(got, expected, list(AGGREGATES))

    check()


@pytest.mark.parametrize("n", [0, 2])
def test_rows_window_matches_reference(spark, n):
    sql = compiled(
        f"{{{{ rows_window_aggregate('sw_input', rows={n}, partition_by=['p'], arrival_order='seq', "
        f"aggregates={AGGREGATES_SQL}) }}}}"
    )

    @settings(max_examples=spark_examples(12), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        got = run_on(spark, sql, stream, as_timestamp=False)
        assert_matches(got, rows_window(stream, n=n, partition_by=["p"], aggregates=AGGREGATES), list(AGGREGATES))

    check()


def test_final_only_keeps_final_rows_and_bounds(spark):
    """FOLLOWING with a bound: the bound makes earlier rows final; final_only drops the rest."""
    spark.sql(
        "create or replace temp view sw_trades as select * from values "
        "(1, 0, 'a', 1), (2, 2, 'a', 2), (3, 5, 'a', 3), (4, 6, 'b', 4) as t(seq, t, p, v)"
    )
    spark.sql("create or replace temp view sw_bounds as select * from values (5, 9) as b(seq, t)")
    call = (
        "{{ range_window_aggregate('sw_trades', time_column='t', range=3, direction='following', "
        "partition_by='p', arrival_order='seq', aggregates={'sum_v': 'sum(v)'}, bounds='sw_bounds', "
        "columns=['seq', 't', 'p', 'v']"
    )
    everything = {r["seq"]: r.asDict() for r in spark.sql(compiled(call + ") }}")).collect()}
    assert {k: (r["sum_v"], r["is_final"], r["is_bound"]) for k, r in everything.items()} == {
        1: (3, True, False),   # [0, 3]: 1 + 2, final once time 9 > 3
        2: (5, True, False),   # [2, 5]: 2 + 3
        3: (3, True, False),   # [5, 8]: 3; final by the bound at 9 > 8
        4: (4, False, False),  # [6, 9]: 9 is not past 9
        5: (None, None, True),
    }
    final = {r["seq"] for r in spark.sql(compiled(call + ", final_only=true) }}")).collect()}
    assert final == {1, 2, 3, 5}


@pytest.mark.parametrize("partition_by", [None, "'p'"], ids=["no partition_by", "NULL partition key"])
def test_bounds_advance_time_and_carry_no_data(spark, partition_by):
    """Rowtime bounds are not rows of any window's data: at seq 4, the 6-hour window
    holds the bounds at 09:00 and 10:30 and the data rows 2 and 4, and first, last,
    nest, distinctnest, nth, completeness and count(*) see the two data rows only.
    Without partition_by, and with data rows whose partition key is NULL (as a bound's)."""
    spark.sql(
        "create or replace temp view sw_trades as select * from values "
        "(2, timestamp'2024-01-01 10:00:00', cast(null as string), 5), "
        "(4, timestamp'2024-01-01 11:00:00', cast(null as string), 7) as t(seq, t, p, v)"
    )
    spark.sql("create or replace temp view sw_bounds as select * from values "
              "(1, timestamp'2024-01-01 09:00:00'), (3, timestamp'2024-01-01 10:30:00'), "
              "(5, timestamp'2024-01-01 11:30:00') as b(seq, t)")
    aggregates = ("{'first_v': 'first(v)', 'last_v': 'last(v)', 'values': 'nest(v)', 'distinct_values': "
                  "'distinctnest(v)', 'first_by_nth': 'nth(v, 1)', 'complete': 'completeness(v)', 'n': 'count(*)'}")
    for ties in ("peers", "arrival"):
        sql = compiled(
            "{{ range_window_aggregate('sw_trades', time_column='t', range=\"INTERVAL '6' HOUR\", "
            f"partition_by={partition_by or 'none'}, arrival_order='seq', ties='{ties}', aggregates={aggregates}, "
            "bounds='sw_bounds', columns=['seq', 't', 'p', 'v']) }}"
        )
        at_4 = spark.sql(f"select * from ({sql}) where seq = 4").first()
        assert (at_4["first_v"], at_4["last_v"], list(at_4["values"]), list(at_4["distinct_values"]),
                at_4["first_by_nth"], at_4["complete"], at_4["n"]) == (5, 7, [5, 7], [5, 7], 5, 1.0, 2), ties


@pytest.mark.parametrize("bounds", [None, "sw_bounds"], ids=["plain", "with bounds"])
def test_a_null_time_fails_naming_partition_and_position(spark, bounds):
    """A RANGE frame would put a NULL time in a window of its own NULL peers: the
    contract makes it an error naming the row instead, with rowtime bounds or without."""
    spark.sql(
        "create or replace temp view sw_trades as select * from values "
        "(1, 0, 'a', 1), (2, cast(null as int), 'b', 2), (3, 5, 'a', 3) as t(seq, t, p, v)"
    )
    spark.sql("create or replace temp view sw_bounds as select * from values (4, 9) as b(seq, t)")
    bounds_argument = f"'{bounds}'" if bounds else "none"
    sql = compiled(
        "{{ range_window_aggregate('sw_trades', time_column='t', range=3, partition_by='p', arrival_order='seq', "
        f"aggregates={{'sum_v': 'sum(v)'}}, columns=['seq', 't', 'p', 'v'], bounds={bounds_argument}) }}}}")
    with pytest.raises(Exception) as error:
        spark.sql(sql).collect()
    assert "range_window_aggregate() in model inline_query: `time_column` t is NULL at p=b, arrival position 2" in str(
        error.value)


REPEATED_ARRIVAL_CALLS = {
    "range_window_aggregate": "range_window_aggregate('sw_repeats', range=3, time_column='t', partition_by='p', "
                              "arrival_order='seq', aggregates={'sum_v': 'sum(v)'})",
    "rows_window_aggregate": "rows_window_aggregate('sw_repeats', rows=1, partition_by='p', arrival_order='seq', "
                             "aggregates={'sum_v': 'sum(v)'})",
    "fenl cumulative": "fenl_aggregate('sw_repeats', entity='p', time_column='t', arrival_order='seq', "
                       "aggregates={'sum_v': 'sum(v)'})",
    "fenl since": "fenl_aggregate('sw_repeats', entity='p', time_column='t', arrival_order='seq', "
                  "aggregates={'sum_v': 'sum(v) | max()'}, window=fenl_since('v > 100'))",
    # The one most recent row with v > 0: each row's own value.
    "fenl sliding": "fenl_aggregate('sw_repeats', entity='p', time_column='t', arrival_order='seq', "
                    "aggregates={'sum_v': 'sum(v)'}, window=fenl_sliding(1, 'v > 0'))",
}
# Without the repeat: (p, seq, sum_v) by the window of each call.
RUNNING_SUMS = [("a", 1, 1), ("a", 2, 3), ("b", 1, 5)]
REPEATED_ARRIVAL_EXPECTED = {call: RUNNING_SUMS for call in REPEATED_ARRIVAL_CALLS} | {
    "fenl sliding": [("a", 1, 1), ("a", 2, 2), ("b", 1, 5)]}


@pytest.mark.parametrize("call", REPEATED_ARRIVAL_CALLS, ids=list(REPEATED_ARRIVAL_CALLS))
def test_a_repeated_arrival_position_fails_naming_it(spark, call):
    """Two rows of one partition (entity) at one arrival position and time: which arrived
    first is unknown, so the windows would be a guess. The macro refuses it in the
    engine's words; the same position in another partition is no repeat."""
    spark.sql(
        "create or replace temp view sw_repeats as select * from values "
        "(1, 0, 'a', 1), (1, 0, 'b', 5), (2, 3, 'a', 2), (2, 3, 'a', 4) as t(seq, t, p, v)"
    )
    sql = compiled("{{ " + REPEATED_ARRIVAL_CALLS[call] + " }}")
    with pytest.raises(Exception) as error:
        spark.sql(sql).collect()
    macro = REPEATED_ARRIVAL_CALLS[call].split("(")[0]
    assert (f"{macro}() in model inline_query: `arrival_order` must be a column whose values are unique (each row's "
            "arrival position); got seq 2 twice in p=a.") in str(error.value)
    unique = spark.sql(sql.replace("sw_repeats", "(select * from sw_repeats where v <> 4)")).collect()
    assert sorted((r["p"], r["seq"], r["sum_v"]) for r in unique) == REPEATED_ARRIVAL_EXPECTED[call]
    assert "_sw_repeated_arrival" not in unique[0].asDict()


def test_sql_peers_read_no_arrival_order_unless_an_aggregate_does(spark):
    """Under ties='peers' a row's window holds all its peers whatever their arrival, so
    order-free aggregates read no arrival order and a repeated position decides nothing:
    the plain frame's sums come back. An ordered aggregate (last) is refused as before."""
    spark.sql(
        "create or replace temp view sw_repeats as select * from values "
        "(1, 0, 'a', 1), (1, 0, 'b', 5), (2, 3, 'a', 2), (2, 3, 'a', 4) as t(seq, t, p, v)"
    )
    call = ("range_window_aggregate('sw_repeats', range=3, time_column='t', partition_by='p', ties='peers', "
            "arrival_order='seq', aggregates={'sum_v': 'sum(v)'})")
    rows = spark.sql(compiled("{{ " + call + " }}")).collect()
    assert sorted((r["p"], r["seq"], r["v"], r["sum_v"]) for r in rows) == [
        ("a", 1, 1, 1), ("a", 2, 2, 7), ("a", 2, 4, 7), ("b", 1, 5, 5)]
    ordered = compiled("{{ " + call.replace("'sum(v)'", "'last(v)'") + " }}")
    with pytest.raises(Exception) as error:
        spark.sql(ordered).collect()
    assert "got seq 2 twice in p=a." in str(error.value)
