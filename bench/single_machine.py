"""What a user who stays on one machine would pick instead: six of the kernels'
workloads in DuckDB and Polars (in-process, both cores), beside the engine on Spark,
same data (the Parquet files the Spark benchmarks write), same run. Context, not goals.

- StreamBase tumbling 30/30, SUM and COUNT per symbol, 10,000,000 trades;
- Fenl cumulative SUM/MEAN/MAX per entity, 10,000,000 events over 100,000 entities;
- Odysseus interval semantics COUNT/SUM/MAX, 1,000,000 events over 1,000 groups (the
  pieces as bench/odysseus_intervals.py's plain SQL computes them);
- StreamInsight count window N = 100 distinct start times, SUM/AVG/MAX, 10,000,000
  events over 500 groups (per start time first, then a 100-row frame over the starts);
- 7-day windows by 1 day, SUM/AVG/MAX/COUNT, 10,000,000 events over 1,000 groups (daily
  panes, each added to the 7 windows holding it);
- Fenl daily cron SUM/COUNT/MEAN, 10,000,000 events over 1,000 entities, empty days
  included (every entity and every day of the span, joined to the days' sums).

The others (hopping field windows, Fenl sliding(n, pred), RANGE with ties='arrival')
have no plain query that gives the engine's rows: StreamBase opens a group's windows
only while the group has one open, and the other two need a frame of n rows where a
predicate holds, or peers cut by arrival.

Each workload runs once untimed on every side, then in ROUNDS - 1 rotating rounds
(Spark, DuckDB, Polars); the figures are medians. DuckDB materializes its result in a
temporary table, Polars collects a DataFrame, Spark writes to the noop sink: every row
computed on every side. Each side's rows are checked equal to the engine's on a sample
of keys (all their rows)."""

from __future__ import annotations

import statistics
import time

import pandas as pd

from bench import (
    fenl_windows,
    odysseus_intervals,
    odysseus_panes,
    streambase_field_dimension,
    streaminsight_count_windows,
)
from bench.harness import PROJECT_DIR

ROUNDS = 4  # the first untimed
TRADES = str(PROJECT_DIR / ".spark" / "bench" / "trades_10m")
FENL_EVENTS = str(PROJECT_DIR / ".spark" / "bench" / "fenl_events_100k")
INTERVAL_EVENTS = str(PROJECT_DIR / odysseus_intervals.PATH)
COUNT_EVENTS = str(PROJECT_DIR / ".spark" / "bench" / "count_window_events")
PANE_EVENTS = str(PROJECT_DIR / ".spark" / "bench" / "pane_events")
CRON_EVENTS = str(PROJECT_DIR / ".spark" / "bench" / "fenl_events_1k")


def _seconds(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _rotate(sides: dict) -> dict[str, list[float]]:
    """side -> its timed runs: every side once untimed, then ROUNDS - 1 rotating rounds."""
    runs: dict[str, list[float]] = {side: [] for side in sides}
    for round_number in range(ROUNDS):
        for side, action in sides.items():
            seconds = _seconds(action)
            if round_number:
                runs[side].append(seconds)
    return runs


def _equal(name: str, side: str, expected: pd.DataFrame, actual: pd.DataFrame, keys: list[str]) -> int:
    """Rows of the sample (their count); raises naming the first difference."""
    expected = expected.sort_values(keys).reset_index(drop=True)
    actual = actual[list(expected.columns)].sort_values(keys).reset_index(drop=True)
    if len(expected) == 0 or len(expected) != len(actual):
        raise AssertionError(f"{name}: {side} gives {len(actual)} rows of the sample, the engine {len(expected)}")
    pd.testing.assert_frame_equal(actual, expected, check_dtype=False, check_exact=False, rtol=1e-9,
                                  obj=f"{name}, {side} against the engine")
    return len(expected)


def _rows(name: str, engine_s: list[float], runs: dict[str, list[float]], sample_rows: int, sample: str) -> list[dict]:
    spark_s = statistics.median(engine_s)
    rows = []
    for side in ("DuckDB", "Polars"):
        measured_s = statistics.median(runs[side])
        rows.append({
            "benchmark": f"{name} in {side}", "baseline": "the engine on Spark, same run", "baseline_s": spark_s,
            "measured": side, "measured_s": measured_s, "ratio": measured_s / spark_s, "goal": None,
            "also": f"medians of {ROUNDS - 1} rotating rounds: Spark {[round(t, 2) for t in engine_s]} s, "
                    f"{side} {[round(t, 2) for t in runs[side]]} s; equal to the engine's rows on {sample} "
                    f"({sample_rows:,} rows)",
        })
    return rows


def _against_engine(name: str, engine, duck, duck_sql: str, table: str, polars, sample: str, sample_label: str,
                    columns: list[str], keys: list[str]) -> list[dict]:
    """Times the engine (``engine()`` builds its Spark DataFrame, written to the noop
    sink), ``duck_sql`` (filling DuckDB's ``table``) and ``polars()`` in rotating rounds,
    then checks DuckDB's and Polars' rows equal to the engine's ``columns`` where the SQL
    condition ``sample`` holds (compared in ``keys`` order); the result rows."""
    import polars as pl

    result = {}
    runs = _rotate({"Spark": lambda: engine().write.format("noop").mode("overwrite").save(),
                    "DuckDB": lambda: duck.execute(duck_sql),
                    "Polars": lambda: result.__setitem__("polars", polars())})
    expected = engine().where(sample).select(*columns).toPandas()
    duck_rows = duck.execute(f"select * from {table} where {sample}").df()
    polars_rows = result["polars"].filter(pl.sql_expr(sample)).to_pandas()
    checked = _equal(name, "DuckDB", expected, duck_rows, keys)
    _equal(name, "Polars", expected, polars_rows, keys)
    return _rows(name, runs.pop("Spark"), runs, checked, sample_label)


def tumbling(spark, duck, pl) -> list[dict]:
    trades = streambase_field_dimension.make_trades(spark, 10_000_000, TRADES)

    def engine():
        return streambase_field_dimension.engine(trades, 30, 30)

    # A window closes when a trade at or past its end arrives (any symbol): the windows
    # still open at the end of the stream are not emitted.
    duck_sql = f"""
        create or replace temp table tumbling as
        select * from (
            select symbol, time // 30 * 30 as window_start, time // 30 * 30 + 30 as window_end,
                   sum(volume) as total_volume, count(*) as trades
            from read_parquet('{TRADES}/*.parquet') group by all
        ) where window_end <= (select max(time) from read_parquet('{TRADES}/*.parquet'))
    """

    def polars():
        frame = pl.scan_parquet(f"{TRADES}/*.parquet")
        latest = frame.select(pl.col("time").max()).collect().item()
        return (frame.group_by("symbol", (pl.col("time") // 30 * 30).alias("window_start"))
                .agg(pl.col("volume").sum().alias("total_volume"), pl.len().alias("trades"))
                .with_columns((pl.col("window_start") + 30).alias("window_end"))
                .filter(pl.col("window_end") <= latest).collect())

    sample = ", ".join(repr(f"S{i:03d}") for i in range(0, 500, 25))
    return _against_engine(
        "StreamBase tumbling 30/30, 10M trades",
        engine, duck, duck_sql, "tumbling", polars, f"symbol in ({sample})", "20 symbols",
        ["symbol", "window_start", "window_end", "total_volume", "trades"],
        ["symbol", "window_start"])


def cumulative(spark, duck, pl) -> list[dict]:
    fenl_windows.make_events(spark, 100_000, FENL_EVENTS, "bench_fenl_events")
    engine_sql = fenl_windows.fenl("bench_fenl_events", "none")
    duck_sql = f"""
        create or replace temp table cumulative as
        select seq, entity, sum(amount) over w as amount_sum, avg(amount) over w as amount_mean,
               max(amount) over w as amount_max
        from read_parquet('{FENL_EVENTS}/*.parquet')
        window w as (partition by entity order by event_at, seq rows between unbounded preceding and current row)
    """

    def polars():
        ordered = pl.scan_parquet(f"{FENL_EVENTS}/*.parquet").sort("entity", "event_at", "seq")
        return ordered.select(
            "seq", "entity",
            pl.col("amount").cum_sum().over("entity").alias("amount_sum"),
            (pl.col("amount").cum_sum() / pl.col("amount").cum_count()).over("entity").alias("amount_mean"),
            pl.col("amount").cum_max().over("entity").alias("amount_max"),
        ).collect()

    return _against_engine(
        "Fenl cumulative SUM/MEAN/MAX, 10M events, 100k entities",
        lambda: spark.sql(engine_sql), duck, duck_sql, "cumulative", polars, "entity < 100", "100 entities",
        ["seq", "amount_sum", "amount_mean", "amount_max"],
        ["seq"])


def intervals(spark, duck, pl) -> list[dict]:
    events = odysseus_intervals.make_events(spark)
    bucket = spark.sql("select max(valid_to - valid_from) as n from bench_interval_events").first()["n"]
    # The plain SQL of odysseus_intervals, on the same Parquet files.
    duck_sql = ("create or replace temp table intervals as "
                + odysseus_intervals.plain_sql(bucket, f"read_parquet('{INTERVAL_EVENTS}/*.parquet')", "duckdb"))

    def polars():
        frame = pl.scan_parquet(f"{INTERVAL_EVENTS}/*.parquet")
        boundaries = pl.concat([frame.select("grp", pl.col("valid_from").alias("t")),
                                frame.select("grp", pl.col("valid_to").alias("t"))]).unique().sort("grp", "t")
        pieces = (boundaries.with_columns(pl.col("t").shift(-1).over("grp").alias("window_end"))
                  .rename({"t": "window_start"}).drop_nulls("window_end")
                  .with_columns((pl.col("window_start") // bucket).alias("bucket")))
        covering = (frame.with_columns(pl.int_ranges(pl.col("valid_from") // bucket,
                                                     (pl.col("valid_to") - 1) // bucket + 1).alias("bucket"))
                    .explode("bucket"))
        covers = (pl.col("valid_from") <= pl.col("window_start")) & (pl.col("window_start") < pl.col("valid_to"))
        return (pieces.join(covering, on=["grp", "bucket"]).filter(covers)
                .group_by("grp", "window_start", "window_end")
                .agg(pl.len().alias("events_valid"), pl.col("price").sum().alias("price_sum"),
                     pl.col("price").max().alias("max_price"))
                .collect())

    return _against_engine(
        "Odysseus interval semantics COUNT/SUM/MAX, 1M events, 1k groups",
        lambda: odysseus_intervals.engine(events), duck, duck_sql, "intervals", polars, "grp < 50", "50 groups",
        odysseus_intervals.COLUMNS,
        ["grp", "window_start"])


def count_window(spark, duck, pl) -> list[dict]:
    streaminsight_count_windows.make_events(spark, COUNT_EVENTS)
    engine_sql = streaminsight_count_windows.count_window_sql()
    # Per group and start time first (about 3 events each), then a frame of the 100
    # latest start times; a group's windows begin at its 100th start time, and its last
    # one is not final (an event at that start time may still join it).
    duck_sql = f"""
        create or replace temp table count_windows as
        with starts as (
            select grp, start_at::timestamp as start_at, count(*) as n, sum(reading) as s, max(reading) as m
            from read_parquet('{COUNT_EVENTS}/*.parquet') group by all
        ), framed as (
            select grp, start_at as point_at, first_value(start_at) over f as window_start, count(*) over f as starts,
                   sum(n) over f as event_count, sum(s) over f as reading_sum, max(m) over f as reading_max,
                   start_at < max(start_at) over (partition by grp) as is_final
            from starts window f as (partition by grp order by start_at rows between 99 preceding and current row)
        )
        select grp, point_at, window_start, point_at + interval 1 microsecond as window_end, event_count, is_final,
               reading_sum, reading_sum / event_count as reading_avg, reading_max
        from framed where starts = 100
    """

    def polars():
        starts = (pl.scan_parquet(f"{COUNT_EVENTS}/*.parquet")
                  .with_columns(pl.col("start_at").dt.replace_time_zone(None))
                  .group_by("grp", "start_at")
                  .agg(pl.len().alias("n"), pl.col("reading").sum().alias("s"), pl.col("reading").max().alias("m"))
                  .sort("grp", "start_at"))
        return (starts.select(
            "grp", pl.col("start_at").alias("point_at"),
            pl.col("start_at").shift(99).over("grp").alias("window_start"),
            (pl.col("start_at") + pl.duration(microseconds=1)).alias("window_end"),
            pl.col("n").rolling_sum(100).over("grp").alias("event_count"),
            (pl.col("start_at") < pl.col("start_at").max().over("grp")).alias("is_final"),
            pl.col("s").rolling_sum(100).over("grp").alias("reading_sum"),
            pl.col("m").rolling_max(100).over("grp").alias("reading_max"),
        ).filter(pl.col("window_start").is_not_null())
         .with_columns((pl.col("reading_sum") / pl.col("event_count")).alias("reading_avg"))
         .collect())

    return _against_engine(
        "StreamInsight count window N=100, SUM/AVG/MAX, 10M events, 500 groups",
        lambda: spark.sql(engine_sql), duck, duck_sql, "count_windows", polars, "grp < 10", "10 groups",
        ["grp", "point_at", "window_start", "window_end", "event_count", "is_final", "reading_sum", "reading_avg",
         "reading_max"],
        ["grp", "point_at"])


def panes(spark, duck, pl) -> list[dict]:
    odysseus_panes.make_events(spark)
    engine_sql = odysseus_panes.merged_sql(spark)
    # Daily panes, each added to the 7 windows that hold its day (starts on whole days,
    # as Spark's window() and merge_partial_aggregates place them).
    duck_sql = f"""
        create or replace temp table panes as
        with daily as (
            select grp, date_trunc('day', event_at::timestamp) as day, sum(amount) as s, count(*) as n,
                   max(amount) as m
            from read_parquet('{PANE_EVENTS}/*.parquet') group by all
        )
        select grp, day - k * interval 1 day as window_start, day - k * interval 1 day + interval 7 day as window_end,
               sum(s) as amount_sum, sum(s) / sum(n) as amount_avg, max(m) as amount_max, sum(n) as events
        from daily, range(7) as ks(k) group by all
    """

    def polars():
        daily = (pl.scan_parquet(f"{PANE_EVENTS}/*.parquet")
                 .group_by("grp", pl.col("event_at").dt.replace_time_zone(None).dt.truncate("1d").alias("day"))
                 .agg(pl.col("amount").sum().alias("s"), pl.len().alias("n"), pl.col("amount").max().alias("m")))
        return (daily.with_columns(pl.int_ranges(0, 7).alias("k")).explode("k")
                .with_columns((pl.col("day") - pl.duration(days=pl.col("k"))).alias("window_start"))
                .group_by("grp", "window_start")
                .agg(pl.col("s").sum().alias("amount_sum"), pl.col("n").sum().alias("events"),
                     pl.col("m").max().alias("amount_max"))
                .with_columns((pl.col("window_start") + pl.duration(days=7)).alias("window_end"),
                              (pl.col("amount_sum") / pl.col("events")).alias("amount_avg"))
                .collect())

    return _against_engine(
        "7-day windows by 1 day from daily partials, 10M events, 1k groups",
        lambda: spark.sql(engine_sql), duck, duck_sql, "panes", polars, "grp < 20", "20 groups",
        ["grp", "window_start", "window_end", "amount_sum", "amount_avg", "amount_max", "events"],
        ["grp", "window_start"])


def cron(spark, duck, pl) -> list[dict]:
    fenl_windows.make_events(spark, 1_000, CRON_EVENTS, "bench_fenl_events_1k")
    engine_sql = fenl_windows.fenl("bench_fenl_events_1k", "fenl_since(period='daily')",
                                   "{'amount_sum': 'sum(amount)', 'events': 'count(*)', 'amount_mean': 'mean(amount)'}")
    # Every entity on every day from the oldest event's to the newest's: the days' sums
    # joined to that grid (an empty day sums to 0, counts 0, has no mean).
    duck_sql = f"""
        create or replace temp table cron as
        with daily as (
            select entity, date_trunc('day', event_at::timestamp) as day, sum(amount) as s, count(*) as n
            from read_parquet('{CRON_EVENTS}/*.parquet') group by all
        ), days as (
            select range as day from range((select min(day) from daily), (select max(day) from daily) + interval 1 day,
                                           interval 1 day)
        )
        select e.entity, d.day as period_start, d.day + interval 1 day as period_end, coalesce(x.s, 0) as amount_sum,
               coalesce(x.n, 0) as events, x.s / x.n as amount_mean
        from (select distinct entity from daily) as e cross join days as d
        left join daily as x on x.entity = e.entity and x.day = d.day
    """

    def polars():
        daily = (pl.scan_parquet(f"{CRON_EVENTS}/*.parquet")
                 .group_by("entity", pl.col("event_at").dt.replace_time_zone(None).dt.cast_time_unit("us")
                           .dt.truncate("1d").alias("day"))
                 .agg(pl.col("amount").sum().alias("s"), pl.len().alias("n"))
                 .collect())
        days = pl.DataFrame({"day": pl.datetime_range(daily["day"].min(), daily["day"].max(), "1d", time_unit="us",
                                                     eager=True)})
        grid = daily.select("entity").unique().join(days, how="cross")
        return (grid.join(daily, on=["entity", "day"], how="left")
                .select("entity", pl.col("day").alias("period_start"),
                        (pl.col("day") + pl.duration(days=1)).alias("period_end"),
                        pl.col("s").fill_null(0).alias("amount_sum"), pl.col("n").fill_null(0).alias("events"),
                        (pl.col("s") / pl.col("n")).alias("amount_mean")))

    return _against_engine(
        "Fenl since(daily) SUM/COUNT/MEAN, 10M events, 1k entities, 1 year",
        lambda: spark.sql(engine_sql), duck, duck_sql, "cron", polars, "entity < 20", "20 entities",
        ["entity", "period_start", "period_end", "amount_sum", "events", "amount_mean"],
        ["entity", "period_start"])


def run(spark) -> list[dict]:
    import duckdb
    import polars as pl

    duck = duckdb.connect()
    results = []
    duck.execute("set TimeZone = 'UTC'")  # Spark's timestamps read as UTC instants; days are UTC days
    for workload in (tumbling, cumulative, intervals, count_window, panes, cron):
        rows = workload(spark, duck, pl)
        for row in rows:
            print(f"  {row['benchmark']}: Spark {row['baseline_s']:.2f}s, {row['measured']} "
                  f"{row['measured_s']:.2f}s ({row['ratio']:.2f})", flush=True)
        results += rows
    return results
