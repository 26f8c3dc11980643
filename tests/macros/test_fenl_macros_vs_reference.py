"""The SQL that fenl_aggregate generates, run by Spark on random event streams (ties,
NULL values, several entities, predicates true and false), equals the naive reference
of SEMANTICS.md section 4; plus the document-independent edge cases by name: DST in a
cron zone, a NULL time."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import MANY_EXAMPLES, compiled, spark_examples
from tests.macros.reference_fenl import UTC, cron, per_row

EPOCH = dt.datetime(1970, 1, 1, tzinfo=UTC)
# pipeline spec -> reference pipeline ((function, column), later functions...)
PIPELINES = {
    "sum(v)": (("sum", "v"),),
    "count(v)": (("count", "v"),),
    "count(*)": (("count", "*"),),
    "mean(v)": (("avg", "v"),),
    "min(v)": (("min", "v"),),
    "max(v)": (("max", "v"),),
    "first(v)": (("first", "v"),),
    "last(v)": (("last", "v"),),
    "sum(v) | mean()": (("sum", "v"), "avg"),
    "max(v) | sum() | count()": (("max", "v"), "sum", "count"),
    "first(v) | last()": (("first", "v"), "last"),
}
AGGREGATES_SQL = "{" + ", ".join(f"'a{i}': '{spec}'" for i, spec in enumerate(PIPELINES)) + "}"
SCHEMA = "seq int, e string, t_us bigint, v int, flag boolean"


def call(window: str = "none", time_zone: str = "UTC", aggregates: str = AGGREGATES_SQL, **extra: str) -> str:
    rest = "".join(f", {k}={v}" for k, v in extra.items())
    return compiled(
        "{{ fenl_aggregate('sw_events', entity='e', time_column='t', arrival_order='seq', "
        f"window={window}, time_zone='{time_zone}', aggregates={aggregates}{rest}) }}}}"
    )


@st.composite
def streams(draw, *, max_step_minutes: int = 3):
    n = draw(st.integers(1, 25))
    t = draw(st.integers(0, 10))
    rows = []
    for i in range(n):
        t += draw(st.integers(0, max_step_minutes))
        rows.append({
            "seq": i + 1,
            "e": draw(st.sampled_from(["a", "b", "c"])),
            "t": t,  # minutes; ties are common
            "v": draw(st.one_of(st.none(), st.integers(-20, 20))),
            "flag": draw(st.one_of(st.booleans(), st.none())),
        })
    # Arrival need not follow time: shuffle which row arrives first among the rows.
    order = draw(st.permutations(range(n)))
    for seq, row in zip(range(1, n + 1), (rows[i] for i in order), strict=True):
        row["seq"] = seq
    return rows


def load(spark, stream, *, base: dt.datetime, unit: dt.timedelta) -> None:
    def micros(t):
        return (base + t * unit - EPOCH) // dt.timedelta(microseconds=1)

    data = [(r["seq"], r["e"], micros(r["t"]), r["v"], r["flag"]) for r in stream]
    spark.createDataFrame(data, SCHEMA).selectExpr("*", "timestamp_micros(t_us) as t").createOrReplaceTempView(
        "sw_events"
    )


def equal(a, b) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        return a is not None and b is not None and a == pytest.approx(b)
    return a == b


def for_reference(stream, base, unit):
    return [{**r, "flag": bool(r["flag"]), "t": base + r["t"] * unit} for r in stream]


PER_ROW = [
    pytest.param("none", "cumulative", 0, id="cumulative"),
    pytest.param("fenl_sliding(1, 'flag')", "sliding", 1, id="sliding(1, flag)"),
    pytest.param("fenl_sliding(3, 'flag')", "sliding", 3, id="sliding(3, flag), NULL predicate is false"),
    pytest.param("fenl_sliding(2)", "sliding", 2, id="sliding(2), every row counts"),
    pytest.param("fenl_since('flag')", "since", 0, id="since(flag)"),
]


@pytest.mark.parametrize(("window", "kind", "n"), PER_ROW)
def test_per_row_windows_match_reference(spark, window, kind, n):
    check_per_row_window(spark, window, kind, n, examples=spark_examples(12))


@pytest.mark.proof
def test_sliding_window_matches_reference_on_many_streams(spark):
    """Fenl's family on many more streams: sliding(3, flag), a NULL predicate false.
    Guarded in `make test` by test_per_row_windows_match_reference (the same check,
    every per-row window, 12 streams each, 6 in `make test`)."""
    check_per_row_window(spark, "fenl_sliding(3, 'flag')", "sliding", 3, examples=MANY_EXAMPLES)


def check_per_row_window(spark, window, kind, n, examples):
    sql = call(window)
    base, unit = dt.datetime(2024, 1, 1, tzinfo=UTC), dt.timedelta(minutes=1)

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        load(spark, stream, base=base, unit=unit)
        got = {r["seq"]: r.asDict() for r in spark.sql(sql).collect()}
        assert sorted(got) == sorted(r["seq"] for r in stream)
        reference_stream = for_reference(stream, base, unit)
        if window == "fenl_sliding(2)":
            reference_stream = [{**r, "flag": True} for r in reference_stream]
        for i, pipeline in enumerate(PIPELINES.values()):
            expected = per_row(reference_stream, window=kind, pipeline=pipeline, n=n)
            for seq, value in expected.items():
                assert equal(got[seq][f"a{i}"], value), (list(PIPELINES)[i], seq, got[seq], value)

    check()


# Start just before New York's 2024 fall-back (Nov 3, 06:00 UTC), so hourly and daily
# runs cross it; the daily and monthly runs also reach spring-forward (Mar 9, 2025).
CRON_BASE = dt.datetime(2024, 11, 3, 3, 0, tzinfo=UTC)
# Offsets that move by half an hour: Lord Howe Island's DST start (2012-10-06 15:30
# UTC, 02:00 -> 02:30 local) and Caracas on 2016-05-01 (07:00 UTC, 02:30 -> 03:00).
LORD_HOWE_BASE = dt.datetime(2012, 10, 6, 13, 0, tzinfo=UTC)
CARACAS_BASE = dt.datetime(2016, 5, 1, 5, 0, tzinfo=UTC)
# `proof` cases (make test-all): each period in UTC and the second half-hour zones, whose
# rules the cases left in `make test` cross as well (New York's daily and hourly runs
# over both DST changes, Lord Howe's half-hour move, Berlin's months, UTC's years).
PROOF = pytest.mark.proof
CRON = [
    pytest.param("daily", "UTC", dt.timedelta(hours=2), CRON_BASE, id="daily, UTC", marks=PROOF),
    pytest.param("hourly", "UTC", dt.timedelta(minutes=7), CRON_BASE, id="hourly, UTC", marks=PROOF),
    pytest.param("monthly", "UTC", dt.timedelta(days=3), CRON_BASE, id="monthly, UTC", marks=PROOF),
    pytest.param("yearly", "UTC", dt.timedelta(days=40), CRON_BASE, id="yearly, UTC"),
    pytest.param("daily", "America/New_York", dt.timedelta(hours=3), CRON_BASE,
                 id="daily, New York across both DST changes"),
    pytest.param("hourly", "America/New_York", dt.timedelta(minutes=9), CRON_BASE,
                 id="hourly, New York, clocks go back"),
    pytest.param("hourly", "Asia/Kolkata", dt.timedelta(minutes=7), CRON_BASE, id="hourly, half-hour offset",
                 marks=PROOF),
    pytest.param("hourly", "Australia/Lord_Howe", dt.timedelta(minutes=4), LORD_HOWE_BASE,
                 id="hourly, Lord Howe, offset moves by half an hour"),
    pytest.param("hourly", "America/Caracas", dt.timedelta(minutes=4), CARACAS_BASE,
                 id="hourly, Caracas 2016, offset moves by half an hour", marks=PROOF),
    pytest.param("monthly", "Europe/Berlin", dt.timedelta(days=3), CRON_BASE, id="monthly, Berlin"),
]


@pytest.mark.parametrize(("period", "zone", "unit", "base"), CRON)
def test_cron_windows_match_reference(spark, period, zone, unit, base):
    sql = call(f"fenl_since(period='{period}')", time_zone=zone)
    sql = f"select *, unix_micros(period_start) as start_us, unix_micros(period_end) as end_us from ({sql})"

    @settings(max_examples=spark_examples(10), deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams(max_step_minutes=12))
    def check(stream):
        load(spark, stream, base=base, unit=unit)
        got = {
            (r["e"], EPOCH + dt.timedelta(microseconds=r["start_us"]), EPOCH + dt.timedelta(microseconds=r["end_us"])):
            r.asDict()
            for r in spark.sql(sql).collect()
        }
        reference_stream = for_reference(stream, base, unit)
        for i, pipeline in enumerate(PIPELINES.values()):
            expected = cron(reference_stream, period=period, zone=zone, pipeline=pipeline)
            assert sorted(got) == sorted(expected)
            for key, value in expected.items():
                assert equal(got[key][f"a{i}"], value), (list(PIPELINES)[i], key, got[key], value)

    check()


def test_daily_cron_in_new_york_has_a_25_hour_day_at_fall_back(spark):
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-11-02 12:00:00', 1), "   # Nov 2, 08:00 EDT
        "(2, 'a', timestamp'2024-11-04 04:30:00', 2), "   # Nov 3, 23:30 EST: still Nov 3
        "(3, 'a', timestamp'2024-11-04 05:30:00', 4) "    # Nov 4, 00:30 EST
        "as t(seq, e, t, v)"
    )
    sql = call("fenl_since(period='daily')", time_zone="America/New_York", aggregates="{'total': 'sum(v)'}")
    got = [tuple(r) for r in spark.sql(f"select period_start, period_end, total from ({sql}) order by 1").collect()]
    assert got == [
        (dt.datetime(2024, 11, 2, 4), dt.datetime(2024, 11, 3, 4), 1),
        (dt.datetime(2024, 11, 3, 4), dt.datetime(2024, 11, 4, 5), 2),  # 25 hours
        (dt.datetime(2024, 11, 4, 5), dt.datetime(2024, 11, 5, 5), 4),
    ]


def test_hourly_cron_in_new_york_keeps_the_repeated_hour_apart(spark):
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-11-03 05:30:00', 1), "  # 01:30 EDT
        "(2, 'a', timestamp'2024-11-03 06:30:00', 2) "   # 01:30 EST, an hour later
        "as t(seq, e, t, v)"
    )
    sql = call("fenl_since(period='hourly')", time_zone="America/New_York", aggregates="{'total': 'sum(v)'}")
    got = [tuple(r) for r in spark.sql(f"select period_start, period_end, total from ({sql}) order by 1").collect()]
    assert got == [
        (dt.datetime(2024, 11, 3, 5), dt.datetime(2024, 11, 3, 6), 1),
        (dt.datetime(2024, 11, 3, 6), dt.datetime(2024, 11, 3, 7), 2),
    ]


@pytest.mark.parametrize(("zone", "times", "expected"), [
    pytest.param("Australia/Lord_Howe", ["2012-10-06 15:00:00", "2012-10-06 15:40:00", "2012-10-06 16:10:00"],
                 [(dt.datetime(2012, 10, 6, 14, 30), dt.datetime(2012, 10, 6, 16, 0), 2),
                  (dt.datetime(2012, 10, 6, 16, 0), dt.datetime(2012, 10, 6, 17, 0), 1)],
                 id="Lord Howe, clocks go forward half an hour"),
    pytest.param("America/Caracas", ["2016-05-01 06:45:00", "2016-05-01 07:10:00"],
                 [(dt.datetime(2016, 5, 1, 6, 30), dt.datetime(2016, 5, 1, 7, 0), 1),
                  (dt.datetime(2016, 5, 1, 7, 0), dt.datetime(2016, 5, 1, 8, 0), 1)],
                 id="Caracas 2016, clocks go forward half an hour"),
])
def test_hourly_cron_follows_half_hour_offset_changes(spark, zone, times, expected):
    """An hour runs from one instant whose local minute is zero to the next: 90 minutes
    on Lord Howe Island as clocks go from 02:00 to 02:30, 30 minutes in Caracas as they go
    from 02:30 to 03:00; no period overlaps another and none is a phantom."""
    rows = ", ".join(f"({i + 1}, 'a', timestamp'{t}', 1)" for i, t in enumerate(times))
    spark.sql(f"create or replace temp view sw_events as select * from values {rows} as t(seq, e, t, v)")
    sql = call("fenl_since(period='hourly')", time_zone=zone, aggregates="{'n': 'count(*)'}")
    got = [tuple(r) for r in spark.sql(f"select period_start, period_end, n from ({sql}) order by 1").collect()]
    assert got == expected


def test_cron_covers_every_entity_over_the_whole_inputs_span(spark):
    """Periods run from the oldest event of any entity to the newest; an event exactly on
    the newest period's start is reported (SEMANTICS.md: 'at or before')."""
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-01-01 10:00:00', 5), (2, 'b', timestamp'2024-01-03 00:00:00', 7) "
        "as t(seq, e, t, v)"
    )
    sql = call("fenl_since(period='daily')", aggregates="{'total': 'sum(v)', 'n': 'count(*)', 'avg_v': 'mean(v)'}")
    got = sorted((r["e"], r["period_end"].day, r["total"], r["n"], r["avg_v"]) for r in spark.sql(sql).collect())
    assert got == [
        ("a", 2, 5, 1, 5.0), ("a", 3, 0, 0, None), ("a", 4, 0, 0, None),
        ("b", 2, 0, 0, None), ("b", 3, 0, 0, None), ("b", 4, 7, 1, 7.0),
    ]


def test_cron_period_whose_rows_are_all_null_gives_the_empty_value(spark):
    """A period whose rows are all NULL in the column gives what an empty period gives
    (sum 0, count 0, mean NULL), and a repeated aggregation carries that value on."""
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2020-01-01 10:00:00', cast(null as int)), (2, 'a', timestamp'2020-01-02 09:00:00', 5) "
        "as t(seq, e, t, v)"
    )
    aggregates = "{'total': 'sum(v)', 'n': 'count(v)', 'avg_v': 'mean(v)', 'mean_of_sums': 'sum(v) | mean()'}"
    sql = call("fenl_since(period='daily')", aggregates=aggregates)
    got = [tuple(r) for r in spark.sql(f"select total, n, avg_v, mean_of_sums from ({sql}) order by period_start")
           .collect()]
    assert got == [(0, 0, None, 0.0), (5, 1, 5.0, 2.5)]


def test_cron_cells_keep_the_aggregates_types_in_empty_periods(spark):
    """An empty period's cells are the constants 0 and NULL: they take each aggregate's
    type (decimal, bigint, string, double), as in a plain GROUP BY, and no value of a
    filled period is rounded or cast."""
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-01-01 10:00:00', 12345678901.25BD, 3000000000L, 'x'), "
        "(2, 'a', timestamp'2024-01-03 09:00:00', 0.5BD, 1L, 'y') as t(seq, e, t, price, n, label)"
    )
    aggregates = ("{'price_sum': 'sum(price)', 'n_sum': 'sum(n)', 'events': 'count(*)', 'first_label': 'first(label)', "
                  "'price_mean': 'mean(price)'}")
    result = spark.sql(call("fenl_since(period='daily')", aggregates=aggregates))
    direct = spark.sql("select sum(price) as price_sum, sum(n) as n_sum, count(*) as events, "
                       "min_by(label, seq) as first_label, avg(price) as price_mean from sw_events group by e")
    types = {f.name: f.dataType.simpleString() for f in result.schema.fields}
    assert {name: types[name] for name in direct.columns} == {
        f.name: f.dataType.simpleString() for f in direct.schema.fields
    }
    got = [tuple(r) for r in result.orderBy("period_start").select(*direct.columns).collect()]
    assert [(str(p), n, c, f, None if m is None else str(m)) for p, n, c, f, m in got] == [
        ("12345678901.25", 3000000000, 1, "x", "12345678901.250000"),
        ("0.00", 0, 0, None, None),
        ("0.50", 1, 1, "y", "0.500000"),
    ]


def test_null_time_fails_the_query_naming_entity_and_arrival(spark):
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-01-01 10:00:00', 5), (2, 'b', cast(null as timestamp), 7) as t(seq, e, t, v)"
    )
    with pytest.raises(Exception) as error:
        spark.sql(call(aggregates="{'total': 'sum(v)'}")).collect()
    assert "fenl_aggregate() in model inline_query: `time_column` t is NULL at e=b, arrival position 2" in str(
        error.value
    )
