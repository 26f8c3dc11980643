"""count_window_aggregate's generated SQL, run by Spark on random streams (repeated
start times, NULL values, several groups), equals the pandas engine's
streamwindows.count_window_aggregate on the same input (SEMANTICS.md section 3);
plus the OutOfOrder and NULL-time errors."""

from __future__ import annotations

import functools

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamwindows import count_window_aggregate as engine_count_window
from tests.conftest import MANY_EXAMPLES, run_dbt


@pytest.fixture(scope="module")
def spark(spark_session):
    """These tests compile the macros over their own temporary views: the run's session
    without the whole project's build (so `make test-fast` runs them too)."""
    return spark_session


AGGREGATES = {"s": "sum(v)", "c": "count(v)", "rows_n": "count(*)", "lo": "min(v)", "hi": "max(v)",
              "mean_v": "avg(v)", "first_v": "first(v)", "last_v": "last(v)", "per_tick": "rate(*)",
              "v_per_tick": "rate(v)"}
AGGREGATES_SQL = "{" + ", ".join(f"'{k}': '{v}'" for k, v in AGGREGATES.items()) + "}"
COLUMNS = ["point_at", "window_start", "window_end", "event_count", "is_final", *AGGREGATES]


@functools.cache
def compiled(inline: str) -> str:
    return run_dbt("compile", "--inline", inline).result.results[0].node.compiled_code


def call(n: int, group_by: str = "'g'", aggregates: str = AGGREGATES_SQL) -> str:
    return compiled(
        f"{{{{ count_window_aggregate('sw_events', time_column='t', n={n}, group_by={group_by}, "
        f"arrival_order='seq', tick=1, aggregates={aggregates}) }}}}"
    )


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


@pytest.mark.parametrize("n", [1, 2, 4], ids=lambda n: f"N={n}")
def test_count_window_sql_equals_the_engine(spark, n):
    check_count_window_sql(spark, n, examples=10)


@pytest.mark.slow
def test_count_window_sql_equals_the_engine_on_many_streams(spark):
    """StreamInsight's family on many more streams (N = 3)."""
    check_count_window_sql(spark, 3, examples=MANY_EXAMPLES)


def check_count_window_sql(spark, n, examples):
    sql = call(n)

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


def test_rate_divides_by_each_windows_own_span_in_seconds(spark):
    """rate() in a count window: the count over window_end - window_start, the window's
    own span (point_at plus one tick, 1 microsecond for timestamps), in seconds."""
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', timestamp'2024-01-01 10:00:00', 1), (2, 'a', timestamp'2024-01-01 10:00:30', cast(null as int)), "
        "(3, 'a', timestamp'2024-01-01 10:02:00', 3) as t(seq, g, t, v)"
    )
    sql = compiled("{{ count_window_aggregate('sw_events', time_column='t', n=2, group_by='g', arrival_order='seq', "
                   "aggregates={'per_second': 'rate(*)', 'values_per_second': 'rate(v)'}) }}")
    rows = spark.sql(f"select * from ({sql}) order by window_start").collect()
    got = [value for r in rows for value in (r["per_second"], r["values_per_second"])]
    assert got == pytest.approx([2 / 30.000001, 1 / 30.000001, 2 / 90.000001, 1 / 90.000001])


def test_out_of_order_start_time_fails_naming_group_values_and_positions(spark):
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', 1, 1), (2, 'a', 5, 2), (3, 'b', 2, 3), (4, 'a', 3, 4) as t(seq, g, t, v)"
    )
    with pytest.raises(Exception) as error:
        spark.sql(call(2, aggregates="{'s': 'sum(v)'}")).collect()
    assert ("count_window_aggregate() in model inline_query: OutOfOrder in g=a: start time 3 at arrival position 4 "
            "arrived after start time 5 at arrival position 2.") in str(error.value)


def test_null_start_time_fails_naming_group_and_position(spark):
    spark.sql(
        "create or replace temp view sw_events as select * from values "
        "(1, 'a', 1, 1), (2, 'b', cast(null as int), 2) as t(seq, g, t, v)"
    )
    with pytest.raises(Exception) as error:
        spark.sql(call(1, aggregates="{'s': 'sum(v)'}")).collect()
    assert "count_window_aggregate() in model inline_query: `time_column` t is NULL in g=b, arrival position 2" in str(
        error.value
    )
