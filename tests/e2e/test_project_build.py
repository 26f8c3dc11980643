"""End to end: `dbt build` of the whole project on the embedded Spark.

The document's tables are checked twice: by the project's own equality tests
(equals_expected against the expected seeds, run by dbt build) and here, by reading
the built tables back.
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from tests.conftest import PROJECT_DIR, exact_shuffle_partitions, rows

# The tests read the tables of the whole project's build.
pytestmark = pytest.mark.usefixtures("project_build")

SCHEMA = "stream_windows"


def test_build_runs_every_node_successfully(project_build):
    results = project_build.result.results
    statuses = {r.node.unique_id: str(r.status) for r in results}
    assert statuses, "dbt build selected nothing"
    failed = {k: v for k, v in statuses.items() if v not in ("success", "pass")}
    assert not failed
    kinds = {uid.split(".")[0] for uid in statuses}
    assert {"seed", "model", "test"} <= kinds


def test_weather_minmax_24h_is_the_documents_table(spark):
    got = rows(spark, f"select seq, wmin_temp, wmax_temp from {SCHEMA}.weather_minmax_24h order by seq")
    # The document's global table (tied rowtimes: Denver then Anchorage arrive at 01:00).
    expected = [(29, 29), (2, 29), (2, 65), (2, 65), (2, 65), (2, 65), (2, 65), (2, 71), (2, 71),
                (2, 71), (2, 71), (4, 71), (3, 71), (3, 71), (2, 71), (2, 56), (2, 56), (1, 56)]
    assert [(r["wmin_temp"], r["wmax_temp"]) for r in got] == expected
    assert [r["seq"] for r in got] == list(range(1, 19))


def test_weather_city_stats_24h_has_the_documents_integer_avg(spark):
    got = rows(
        spark,
        f"select city, rowtime, wmin_temp, wmax_temp, wavg_temp from {SCHEMA}.weather_city_stats_24h "
        "order by seq",
    )
    assert len(got) == 18
    denver_1900 = got[8]
    assert (denver_1900["city"], denver_1900["rowtime"]) == ("Denver", dt.datetime(2018, 11, 1, 19))
    assert (denver_1900["wmin_temp"], denver_1900["wmax_temp"], denver_1900["wavg_temp"]) == (29, 50, 38)
    assert [r["wavg_temp"] for r in got] == [29, 2, 65, 30, 5, 37, 7, 68, 38, 6, 38, 42, 6, 46, 4, 46, 45, 2]
    columns = spark.table(f"{SCHEMA}.weather_city_stats_24h").columns
    # the incremental build's day partition last
    assert columns == ["seq", "rowtime", "city", "wmin_temp", "wmax_temp", "wavg_temp", "time_partition"]


def test_ticker_hourly_volume_passes_bounds_through(spark):
    got = rows(spark, f"select * from {SCHEMA}.ticker_hourly_volume order by seq")
    assert [(r["ticker"], r["amount"], r["hourly_volume"], r["is_bound"]) for r in got] == [
        ("IBM", 10, 10, False),
        ("ORCL", 20, 20, False),
        (None, None, None, True),
        ("ORCL", 15, 35, False),
        ("IBM", 30, 30, False),
        (None, None, None, True),
    ]
    assert [r["rowtime"].time() for r in got if r["is_bound"]] == [dt.time(10, 15), dt.time(11, 10)]


def test_equality_test_fails_on_a_wrong_expected_row(project_build):
    """The equality test against a seed with one wrong value reports exactly that row
    (the build passes because that test is configured to expect one failure)."""
    by_name = {r.node.name: r for r in project_build.result.results}
    check = by_name["equals_expected_catches_one_wrong_row__weather_minmax_24h"]
    assert str(check.status) == "pass"  # error_if/warn_if "!=1": passes only on exactly one failing row
    from tests.conftest import run_dbt

    shown = run_dbt(
        "show", "--inline",
        "select * from ({{ test_equals_expected(ref('weather_minmax_24h'), "
        "ref('expected_results__weather_minmax_24h__one_wrong_row'), 'seq') }})",
    )
    table = shown.result.results[0].agate_table
    reported = [dict(zip(table.column_names, row, strict=True)) for row in table.rows]
    assert len(reported) == 1
    assert {k: reported[0][k] for k in ("seq", "problem", "actual_wmin_temp", "expected_wmin_temp")} == {
        "seq": 12, "problem": "values differ", "actual_wmin_temp": 4, "expected_wmin_temp": 3,
    }


def test_real_data_trailing_24h_stats(spark):
    summary = rows(
        spark,
        f"""
        select city, count(*) as n, max(readings_24h) as most, min(readings_24h) as fewest,
               sum(case when min_temp_f_24h <= temp_f and temp_f <= max_temp_f_24h then 1 else 0 end) as bracketed
        from {SCHEMA}.hourly_temperatures_city_stats_24h group by city order by city
        """,
    )
    assert [(r["city"], r["n"]) for r in summary] == [("San Francisco", 8759), ("Seattle", 8759)]
    for r in summary:
        assert r["most"] == 25  # 24 hours back, both ends inclusive
        assert r["fewest"] == 1  # the first reading of the year
        assert r["bracketed"] == r["n"]


def test_real_data_following_window_last_day_is_provisional(spark):
    got = rows(
        spark,
        f"""
        select city, is_final, count(*) as n, min(reading_at) as first_at, max(reading_at) as last_at
        from {SCHEMA}.hourly_temperatures_city_stats_next_24h group by city, is_final order by city, is_final
        """,
    )
    last = dt.datetime(2010, 12, 31, 23)
    provisional = [r for r in got if not r["is_final"]]
    assert {r["city"] for r in provisional} == {"San Francisco", "Seattle"}
    for r in provisional:
        # Not final: the input ends at 12-31 23:00, not past reading_at + 24h.
        assert r["first_at"] == last - dt.timedelta(hours=24)
        assert r["last_at"] == last
        assert r["n"] == 25
    final = [r for r in got if r["is_final"]]
    assert all(r["last_at"] == last - dt.timedelta(hours=25) for r in final)


def test_models_are_parquet_tables(spark):
    for model in ["weather_minmax_24h", "weather_city_stats_24h", "ticker_hourly_volume"]:
        detail = {r["col_name"]: r["data_type"] for r in rows(spark, f"describe table extended {SCHEMA}.{model}")}
        assert detail["Provider"] == "parquet"
        assert str(PROJECT_DIR / ".spark" / "pytest" / "warehouse") in detail["Location"]


def test_docs_generate_covers_seeds_models_and_macros(docs_target):
    manifest = json.loads((docs_target / "manifest.json").read_text())
    nodes = manifest["nodes"]
    models = {n["name"]: n for n in nodes.values() if n["resource_type"] == "model"}
    seeds = {n["name"]: n for n in nodes.values() if n["resource_type"] == "seed"}
    assert {"weather", "ticker_trades", "hourly_temperatures"} <= set(seeds)
    for name, node in {**models, **seeds}.items():
        assert node["description"], f"{name} has no description"
        if node["resource_type"] == "model":
            undocumented = [c for c, v in node["columns"].items() if not v["description"]]
            assert not undocumented, f"{name}: undocumented columns {undocumented}"
    macros = {m["name"]: m for m in manifest["macros"].values() if m["package_name"] == "stream_windows"}
    for public in ["range_window_aggregate", "rows_window_aggregate"]:
        assert macros[public]["description"], f"macro {public} is undocumented"
        assert macros[public]["arguments"], f"macro {public} documents no arguments"
    # The package's page (a project's own __overview__ stays its landing page).
    package_docs = {d["name"] for d in manifest["docs"].values() if d["package_name"] == "stream_windows"}
    assert "__stream_windows__" in package_docs and "__overview__" not in package_docs
    catalog = json.loads((docs_target / "catalog.json").read_text())
    assert any(k.endswith("weather_minmax_24h") for k in catalog["nodes"])
    # No table shows the metastore's made-up "0 rows" (hive.stats.autogather off).
    zero_rows = [k for k, n in catalog["nodes"].items() if n["stats"].get("rows", {}).get("value") == 0]
    assert zero_rows == [], zero_rows


@pytest.mark.parametrize("model", ["weather_minmax_24h", "weather_city_stats_24h", "ticker_hourly_volume"])
def test_same_output_whatever_the_shuffle_partitions(spark, model):
    """Determinism: the SQL a model compiles to gives the same rows with 1, 2 or 8 partitions."""
    compiled = next((PROJECT_DIR / "target" / "compiled").rglob(f"{model}.sql")).read_text()
    results = []
    for partitions in (1, 2, 8):
        with exact_shuffle_partitions(spark, partitions):
            results.append(sorted(tuple(r) for r in spark.sql(compiled).collect()))
    assert results[0] == results[1] == results[2]


def test_real_data_rows_window_spans_the_missing_hour(spark):
    got = rows(
        spark,
        f"""
        select city, reading_at, readings_6, first_reading_at_6
        from {SCHEMA}.hourly_temperatures_city_last_6_readings
        where reading_at in (timestamp'2010-01-01 02:00:00', timestamp'2010-03-14 06:00:00')
        order by city, reading_at
        """,
    )
    assert [(r["readings_6"], r["first_reading_at_6"]) for r in got] == [
        (3, dt.datetime(2010, 1, 1, 0)), (6, dt.datetime(2010, 3, 14, 0)),  # San Francisco
        (3, dt.datetime(2010, 1, 1, 0)), (6, dt.datetime(2010, 3, 14, 0)),  # Seattle
    ]


def test_fenl_tables_are_the_documents(spark):
    def column(model, name, order="seq"):
        return [r[name] for r in rows(spark, f"select {name} from {SCHEMA}.{model} order by {order}")]

    assert column("purchase_amount_sum_cumulative", "amount_sum") == [5, 7, 20, 24]
    assert column("purchase_amount_sum_last_2_valid", "amount_sum_last_2_valid") == [None, 7, 15, 17]
    yearly = rows(spark, f"select period_end, amount_sum_yearly from {SCHEMA}.purchase_amount_sum_yearly "
                         "order by period_end")
    assert [(r["period_end"].date().isoformat(), r["amount_sum_yearly"]) for r in yearly] == [
        ("2013-01-01", 7), ("2014-01-01", 0), ("2015-01-01", 0), ("2016-01-01", 0), ("2017-01-01", 0),
        ("2018-01-01", 0), ("2019-01-01", 13), ("2020-01-01", 4),
    ]
    assert column("purchase_amount_sum_then_mean", "amount_sum_mean") == pytest.approx([5, 6, 32 / 3, 14])


def test_real_data_fenl_windows(spark):
    yearly = rows(spark, f"""
        select ticker, count(*) as years, min(period_end) as first_end, max(period_end) as last_end,
               sum(prices_yearly) as prices, count(mean_price_yearly) as years_with_prices
        from {SCHEMA}.stock_price_yearly group by ticker order by ticker""")
    assert [(r["ticker"], r["years"], r["prices"], r["years_with_prices"]) for r in yearly] == [
        ("AAPL", 11, 123, 11), ("AMZN", 11, 123, 11), ("GOOG", 11, 68, 7), ("IBM", 11, 123, 11), ("MSFT", 11, 123, 11),
    ]
    assert {(r["first_end"], r["last_end"]) for r in yearly} == {(dt.datetime(2001, 1, 1), dt.datetime(2011, 1, 1))}
    ibm_2000 = rows(spark, f"select * from {SCHEMA}.stock_price_yearly where ticker = 'IBM' order by period_end")[0]
    assert (ibm_2000["prices_yearly"], ibm_2000["closing_price_yearly"]) == (12, 76.47)  # the December 2000 close

    ibm = rows(spark, f"select price, mean_price_last_3_rises from {SCHEMA}.stock_price_mean_last_3_rises "
                      "where ticker = 'IBM' order by seq limit 8")
    # IBM rises in 2000-03, -06, -07, -08: NULL until the third rise, then the last three.
    assert [r["mean_price_last_3_rises"] for r in ibm[:6]] == [None] * 6
    assert ibm[6]["mean_price_last_3_rises"] == pytest.approx((106.11 + 98.33 + 100.74) / 3)
    assert ibm[7]["mean_price_last_3_rises"] == pytest.approx((98.33 + 100.74 + 118.62) / 3)

    highs = rows(spark, f"""
        select ticker, max(max_price_so_far) as high, max(price) as top, count(*) as n,
               sum(case when max_price_so_far < price then 1 else 0 end) as below_price
        from {SCHEMA}.stock_price_max_cumulative group by ticker order by ticker""")
    for r in highs:
        assert r["high"] == r["top"] and r["below_price"] == 0
