"""count_window_aggregate's generated SQL, run by Spark on random streams (repeated
start times, NULL values, several groups), equals the pandas engine's
streamwindows.count_window_aggregate on the same input (SEMANTICS.md section 3);
plus the OutOfOrder and NULL-time errors."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamwindows import count_window_aggregate as engine_count_window
from tests.conftest import MANY_EXAMPLES, compiled, spark_examples

AGGREGATES = {"s": "sum(v)", "c": "count(v)", "rows_n": "count(*)", "lo": "min(v)", "hi": "max(v)",
              "mean_v": "avg(v)", "first_v": "first(v)", "last_v": "last(v)", "per_tick": "rate(*)",
              "v_per_tick": "rate(v)"}
AGGREGATES_SQL = "{" + ", ".join(f"'{k}': '{v}'" for k, v in AGGREGATES.items()) + "}"
COLUMNS = ["point_at", "window_start", "window_end", "event_count", "is_final", *AGGREGATES]


# The macro's two plans: over a CTE or view name it cannot read column types from, so
# sum() and avg() keep it on the event plan; over a catalog relation (as ref() gives),
# every aggregate here merges from per-start parts (the per-start plan).
PLANS = {"events": "'sw_events'", "per start": "api.Relation.create(identifier='sw_events')"}
PLAN_MARKS = {"events": "as _sw_ranked", "per start": "as _sw_starts"}


def call(n: int, group_by: str = "'g'", aggregates: str = AGGREGATES_SQL, plan: str = "events") -> str:
    sql = compiled(
        f"{{{{ count_window_aggregate({PLANS[plan]}, time_column='t', n={n}, group_by={group_by}, "
        f"arrival_order='seq', tick=1, aggregates={aggregates}) }}}}"
    )
    assert PLAN_MARKS[plan] in sql, f"the {plan} plan was expected"  # the test runs the plan it names
    return sql


def typed_view(spark) -> None:
    """The view the per-start plan reads column types from while compiling (each
    example then replaces it with rows of the same types)."""
    spark.sql("create or replace temp view sw_events as "
              "select 1 as seq, 'a' as g, cast(1 as bigint) as t, cast(1 as int) as v")


@st.composite
def streams(draw):
    rows, times = [], {}
    for seq in range(1, draw(st.integers(1, 30)) + 1):
        g = draw(st.sampled_from(["a", "b"]))
        times[g] = times.get(g, draw(st.integers(0, 3))) + draw(st.sampled_from([0, 0, 1, 2, 5]))
        rows.append((seq, g, times[g], draw(st.one_of(st.none(), st.integers(-9, 9)))))
    return rows


def normalise(value):
    if value is None or (isinstance(value, float) and pd.isna(value)) or value is pd.NA:
        return None
    return round(float(value), 9) if isinstance(value, float) else value


@pytest.mark.parametrize("plan", PLANS)
@pytest.mark.parametrize("n", [1, 2, 4], ids=lambda n: f"N={n}")
def test_count_window_sql_equals_the_engine(spark, n, plan):
    check_count_window_sql(spark, n, examples=spark_examples(10), plan=plan)


@pytest.mark.proof
@pytest.mark.parametrize("plan", PLANS)
def test_count_window_sql_equals_the_engine_on_many_streams(spark, plan):
    """StreamInsight's family on many more streams (N = 3). Guarded in `make test` by
    test_count_window_sql_equals_the_engine (the same check for each N and plan, 10
    streams each, 5 in `make test`)."""
    check_count_window_sql(spark, 3, examples=MANY_EXAMPLES, plan=plan)


def check_count_window_sql(spark, n, examples, plan):
    typed_view(spark)
    sql = call(n, plan=plan)

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
    @given(stream=streams())
    def check(stream):
        frame = pd.DataFrame(stream, columns=["seq", "g", "t", "v"]).astype({"v": "Int64"})
        spark.createDataFrame(stream, "seq int, g string, t bigint, v int").createOrReplaceTempView("sw_events")
        got = sorted(tuple(normalise(r[c]) for c in ["g", *COLUMNS]) for r in spark.sql(sql).collect())
        expected_frame = engine_count_window(frame, time="t", n=n, group_by="g", arrival="seq", aggregates=AGGREGATES)
        expected = sorted(
            tuple(normalise(v) for v in row)
            for row in expected_frame[["g", *COLUMNS]].astype(object).itertuples(index=False)
        )
        assert got == expected

    check()


@pytest.mark.parametrize("plan", PLANS)
def test_rate_divides_by_each_windows_own_span_in_seconds(spark, plan):
    """rate() in a count window: the count over window_end - window_start, the window's
    own span (point_at plus one tick, 1 microsecond for timestamps), in seconds."""
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-01-01 10:00:00', 1), (2, 'a', timestamp'2024-01-01 10:00:30', cast(null as int)), "
        "(3, 'a', timestamp'2024-01-01 10:02:00', 3) as t(seq, g, t, v)"
    )
    # With rate() and no sum() or avg(), a CTE name gets the per-start plan too: the
    # event plan is asked for by an aggregate that does not merge (median).
    keep_events = ", 'middle': 'median(v)'" if plan == "events" else ""
    sql = compiled(f"{{{{ count_window_aggregate('sw_events', time_column='t', n=2, group_by='g', arrival_order='seq', "
                   f"aggregates={{'per_second': 'rate(*)', 'values_per_second': 'rate(v)'{keep_events}}}) }}}}")
    assert PLAN_MARKS[plan] in sql
    rows = spark.sql(f"select * from ({sql}) order by window_start").collect()
    got = [value for r in rows for value in (r["per_second"], r["values_per_second"])]
    assert got == pytest.approx([2 / 30.000001, 1 / 30.000001, 2 / 90.000001, 1 / 90.000001])


@pytest.mark.parametrize("plan", PLANS)
def test_out_of_order_start_time_fails_naming_group_values_and_positions(spark, plan):
    typed_view(spark)
    sql = call(2, aggregates="{'s': 'sum(v)'}", plan=plan)
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', 1L, 1), (2, 'a', 5L, 2), (3, 'b', 2L, 3), (4, 'a', 3L, 4) as t(seq, g, t, v)"
    )
    with pytest.raises(Exception) as error:
        spark.sql(sql).collect()
    assert ("count_window_aggregate() in model inline_query: OutOfOrder in g=a: start time 3 at arrival position 4 "
            "arrived after start time 5 at arrival position 2.") in str(error.value)


@pytest.mark.parametrize("plan", PLANS)
def test_null_start_time_fails_naming_group_and_position(spark, plan):
    typed_view(spark)
    sql = call(1, aggregates="{'s': 'sum(v)'}", plan=plan)
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', 1L, 1), (2, 'b', cast(null as bigint), 2) as t(seq, g, t, v)"
    )
    with pytest.raises(Exception) as error:
        spark.sql(sql).collect()
    assert "count_window_aggregate() in model inline_query: `time_column` t is NULL in g=b, arrival position 2" in str(
        error.value
    )


TYPED_ROWS = ", ".join(
    f"({seq}, '{g}', timestamp'2024-01-01 10:00:00' + make_interval(0, 0, 0, 0, 0, {minute}, 0), "
    f"cast({seq % 5} as tinyint), cast({seq * 3} as smallint), {seq * 7}, {seq * 11}L, "
    f"cast({seq / 4} as float), {seq / 8}D, {'null' if seq % 4 == 0 else repr(chr(96 + seq % 26))}, "
    f"cast({seq / 100} as decimal(9, 2)))"
    # two groups, repeated start minutes
    for seq, g, minute in [(i, "ab"[i % 2], i // 3) for i in range(1, 41)]
)
TYPED_AGGREGATES = (
    "{'i8_sum': 'sum(i8)', 'i16_avg': 'avg(i16)', 'i32_sum': 'sum(i32)', 'i64_avg': 'avg(i64)', "
    "'f32_sum': 'sum(f32)', 'f64_avg': 'avg(f64)', 'f64_first': 'first(f64)', 'i32_last': 'last(i32)', "
    "'s_min': 'min(s)', 's_max': 'max(s)', 's_count': 'count(s)', 'rows_n': 'count(*)', "
    "'s_complete': 'completeness(s)', 'per_second': 'rate(*)', 't_max': 'max(t)'}"
)


def test_both_plans_give_the_same_columns_types_and_rows(spark):
    """The per-start plan is only an optimisation: over the same typed input its output
    has the event plan's columns, types and values, for every function it merges and
    every integral and floating column type (values chosen so float sums are exact)."""
    spark.sql(f"create or replace temp view sw_typed as select * from values {TYPED_ROWS} "
              "as t(seq, g, t, i8, i16, i32, i64, f32, f64, s, d)")
    call = ("{{ count_window_aggregate(RELATION, time_column='t', n=3, group_by='g', arrival_order='seq', "
            f"aggregates={TYPED_AGGREGATES}) }}}}")
    events = compiled(call.replace("RELATION", "'sw_typed'"))
    per_start = compiled(call.replace("RELATION", "api.Relation.create(identifier='sw_typed')"))
    assert PLAN_MARKS["events"] in events and PLAN_MARKS["per start"] in per_start
    expected, got = spark.sql(events), spark.sql(per_start)
    assert got.schema == expected.schema  # names, types and nullability
    rows = expected.orderBy("g", "point_at").collect()
    assert len(rows) == 2 * 12  # 40 events, 14 start minutes per group, N = 3
    assert got.orderBy("g", "point_at").collect() == rows


def test_a_decimal_sum_or_avg_keeps_the_event_plan_and_its_decimal_types(spark):
    """A sum of per-start decimal sums would widen the decimal type: a decimal column's
    sum() and avg() keep the event plan, typed as Spark types them over the rows."""
    spark.sql(f"create or replace temp view sw_typed as select * from values {TYPED_ROWS} "
              "as t(seq, g, t, i8, i16, i32, i64, f32, f64, s, d)")
    sql = compiled("{{ count_window_aggregate(api.Relation.create(identifier='sw_typed'), time_column='t', n=3, "
                   "group_by='g', aggregates={'d_sum': 'sum(d)', 'd_avg': 'avg(d)'}) }}")
    assert PLAN_MARKS["events"] in sql
    types = {f.name: f.dataType.simpleString() for f in spark.sql(sql).schema.fields}
    assert (types["d_sum"], types["d_avg"]) == ("decimal(19,2)", "decimal(13,6)")
