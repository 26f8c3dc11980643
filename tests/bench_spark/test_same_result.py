"""bench/same_result.py's check, on Spark (tests/bench/ holds the benchmarks' tests
that need none): a kind's hand-written query must give the measured side's rows and
columns, or the benchmark fails before timing anything. The check runs here on queries
that need no dbt compile, so that it is seen to catch a difference in one row, in one
column's name, and to pass floating columns within 9 decimals."""

from __future__ import annotations

import pytest

from bench import same_result


def rows_kind(same_result_sql, rounded=("wavg_temp",)) -> same_result.Kind:
    """A kind whose measured side is the ROWS frame itself (plain SQL, no macro)."""
    return same_result.Kind("ROWS by hand", "test rows", "sw_bench_weather", "the ROWS frame", same_result.rows_sql,
                            same_result_sql, None, "ROWS frame", rounded=rounded)


@pytest.fixture
def weather(spark):
    spark.sql("""
        select id + 1 as seq, timestamp_seconds(1700000000 + id div 3) as rowtime,
               concat('city_', pmod(hash(id, 17), 3)) as city, cast(pmod(hash(id, 29), 600) as double) / 10 as temp
        from range(400)
    """).createOrReplaceTempView("sw_bench_weather")


def test_the_same_rows_pass_and_a_floating_column_is_compared_to_9_decimals(spark, weather):
    by_hand = lambda view: same_result.rows_sql(view).replace(  # noqa: E731
        "avg(temp) over w as wavg_temp", "sum(temp) over w / count(temp) over w + 1e-12 as wavg_temp")
    assert same_result.differences(spark, rows_kind(by_hand), sample_rows=300) == (0, 300)


def test_one_row_off_is_caught_both_ways(spark, weather):
    one_off = lambda view: same_result.rows_sql(view).replace(  # noqa: E731
        "max(temp) over w as wmax_temp", "if(seq = 7, -1.0, max(temp) over w) as wmax_temp")
    assert same_result.differences(spark, rows_kind(one_off), sample_rows=300) == (2, 300)
    unrounded = lambda view: same_result.rows_sql(view).replace(  # noqa: E731
        "avg(temp) over w as wavg_temp", "avg(temp) over w + 1e-6 as wavg_temp")
    assert same_result.differences(spark, rows_kind(unrounded), sample_rows=300)[0] == 600


def test_another_column_fails_naming_both(spark, weather):
    renamed = lambda view: same_result.rows_sql(view).replace("as wmax_temp", "as wmax")  # noqa: E731
    with pytest.raises(AssertionError, match="columns .*'wmax'.* are not the measured side's .*'wmax_temp'"):
        same_result.differences(spark, rows_kind(renamed), sample_rows=300)
