"""StreamBase field dimension on Spark against Spark SQL baselines, same data, same run.

Data: a deterministic stream of 10,000,000 trades over 500 symbols (Zipf-skewed
frequencies); the time field grows by gaps of 0-3 with mostly 0, about 1.1 trades per
symbol per 10 time units, as a busy feed looks. Each engine run computes every output row
(written to the noop sink).
- tumbling (size = advance = 30, SUM and COUNT per symbol) vs GROUP BY symbol, time div 30;
- hopping (size 70, advance 10) vs Spark's window(ts, '70 seconds', '10 seconds');
- scaling: tumbling at 10M over tumbling at 1M;
- peak memory (JVM and Python workers) of each, beside the baseline's.
Each pair runs in alternating rounds at full size (bench/rounds.py: baseline first, the
first round untimed, judged by the medians). Both sides also run once on the 1M stream
first, untimed.
"""

from __future__ import annotations

from bench.harness import to_noop
from bench.rounds import alternating, paired

SYMBOLS = 500
# Tumbling at or below GROUP BY, hopping at most 0.75 of window() (by medians); the
# scaling row (10M over 1M rows) is context: near-linear growth.
GOALS = {"tumbling": 1.0, "hopping": 0.75, "scaling": 12.0}


def make_trades(spark, rows: int, path: str):
    # gap: 0 for ~98.2% of trades, else 1-3 -> mean gap ~0.036 / 2 units => ~55 trades a unit.
    spark.sql(f"""
        select
            id + 1 as seq,
            cast(sum(gap) over (order by id rows between unbounded preceding and current row) as bigint) as time,
            concat('S', lpad(cast(least(floor(pow(rand(11), 2.2) * {SYMBOLS}), {SYMBOLS} - 1) as int), 3, '0'))
                as symbol,
            cast(1 + floor(rand(13) * 1000) as bigint) as volume
        from (
            select id, case when rand(7) < 0.982 then 0 else 1 + cast(floor(rand(5) * 3) as int) end as gap
            from range({rows})
        )
    """).write.mode("overwrite").parquet(path)
    return spark.read.parquet(path)


AGGREGATES = {"total_volume": "sum(volume)", "trades": "count(*)"}


def engine(trades, size: int, advance: int, optional_windows: str = "single"):
    """The engine's windows of size/advance over the trades, SUM and COUNT per symbol
    (the DataFrame: building it runs the engine's validation jobs)."""
    from streamwindows.spark import field_dimension_aggregate_spark

    return field_dimension_aggregate_spark(trades, field="time", size=size, advance=advance, group_by=["symbol"],
                                           seq="seq", aggregates=AGGREGATES, optional_windows=optional_windows)


def engine_action(trades, size: int, advance: int):
    """The engine's windows run to a no-op sink, timed from the call (the engine runs its
    validation jobs while building the DataFrame)."""
    return to_noop(lambda: engine(trades, size, advance))


def window_sql(size: int, advance: int, view: str = "bench_trades") -> str:
    """Spark's own hopping windows over the same trades."""
    return (f"select symbol, window(timestamp_seconds(time), '{size} seconds', '{advance} seconds') as w, "
            f"sum(volume) as total_volume, count(*) as trades from {view} group by symbol, w")


def run(spark) -> list[dict]:
    # The cumulative sum that builds the stream is a one-off global window; not timed.
    trades = make_trades(spark, 10_000_000, ".spark/bench/trades_10m")
    small = make_trades(spark, 1_000_000, ".spark/bench/trades_1m")
    trades.createOrReplaceTempView("bench_trades")
    small.createOrReplaceTempView("bench_trades_1m")

    def group_by(view):
        return to_noop(f"select symbol, time div 30 as chunk, sum(volume) as total_volume, count(*) as trades "
                       f"from {view} group by symbol, time div 30")

    # Warm-up, not timed: the session's first SQL job and first Python workers (their
    # imports) would otherwise count against whichever side runs first.
    group_by("bench_trades_1m")()
    engine_action(small, 30, 30)()

    base, tumbling = alternating(group_by("bench_trades"), engine_action(trades, 30, 30))
    print(f"  tumbling: GROUP BY {base.median:.1f}s {base.shown}, engine {tumbling.median:.1f}s {tumbling.shown}",
          flush=True)
    results = [paired("StreamBase tumbling 30/30, 10M trades", "GROUP BY symbol, time div 30", base,
                      "field_dimension_aggregate_spark", tumbling, GOALS["tumbling"])]

    hop_base, hopping = alternating(to_noop(window_sql(70, 10)), engine_action(trades, 70, 10))
    print(f"  hopping: window() {hop_base.median:.1f}s {hop_base.shown}, engine {hopping.median:.1f}s {hopping.shown}",
          flush=True)
    results.append(paired("StreamBase hopping 70/10, 10M trades", "Spark window(ts, '70 seconds', '10 seconds')",
                          hop_base, "field_dimension_aggregate_spark", hopping, GOALS["hopping"]))

    # Growth: the engine at 1M against the engine at 10M, in alternating rounds too.
    at_1m, at_10m = alternating(engine_action(small, 30, 30), engine_action(trades, 30, 30))
    print(f"  scaling: 1M {at_1m.median:.1f}s, 10M {at_10m.median:.1f}s", flush=True)
    results.append(paired("StreamBase tumbling, 10M over 1M trades", "engine at 1M", at_1m, "engine at 10M", at_10m,
                          GOALS["scaling"], also="context for growth: near-linear is 10"))
    return results
