"""SQLstream RANGE windows: `ties='arrival'` (the streaming rule, two merged frames)
against `ties='peers'` (Spark's plain RANGE frame) on 1,000,000 weather-like rows of 10
cities, at three widths whose windows hold about 60, 3,600 and 36,000 rows. The plain
frame is timed with Spark's segment tree off (its default, recomputing every window)
and on (the profile's setting); the goal is arrival <= 1.0x plain-with-segment-tree, in
alternating rounds (bench/rounds.py), judged by the medians."""

from __future__ import annotations

from bench.harness import compile_inline, time_query, to_noop
from bench.rounds import alternating, paired

ROWS = 1_000_000
CITIES = 10
# Each city reports about once a second (10 readings a second in all), with ties:
# the city of a reading is drawn by hash, so a city can report twice in one second.
WIDTHS = {"~60 rows": "60 seconds", "~3,600 rows": "1 hour", "~36,000 rows": "10 hours"}
GOAL = 1.0  # at or below the nearest native frame
# Spark's default frame (segment tree off) recomputes each window: at 10 hours it took
# 1,092 s here (2026-11-25), a third of the whole bench, for a figure of context only.
TIMED_WITHOUT_TREE = ("60 seconds", "1 hour")


def make_input(spark, rows: int = ROWS, path: str = ".spark/bench/weather_1m") -> None:
    """The readings, as the temporary view bench_weather."""
    spark.sql(f"""
        select
            id + 1 as seq,
            timestamp_seconds(1700000000 + id div {CITIES}) as rowtime,
            concat('city_', pmod(hash(id, 17), {CITIES})) as city,
            cast(pmod(hash(id, 29), 600) as double) / 10 - 10 as temp
        from range({rows})
    """).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_weather")


def query(width: str, ties: str) -> str:
    return compile_inline(
        "{{ range_window_aggregate('bench_weather', time_column='rowtime', range='" + width + "', "
        "partition_by=['city'], arrival_order='seq', ties='" + ties + "', "
        "aggregates={'wmin_temp': 'min(temp)', 'wmax_temp': 'max(temp)', 'wavg_temp': 'avg(temp)'}) }}"
    )


def run(spark) -> list[dict]:
    make_input(spark)
    results = []
    for label, width in WIDTHS.items():
        plain, arrival = query(width, "peers"), query(width, "arrival")
        plain_default = None
        if width in TIMED_WITHOUT_TREE:
            spark.conf.set("spark.sql.window.segmentTree.enabled", "false")
            plain_default = time_query(spark, plain, repeats=1)
        spark.conf.set("spark.sql.window.segmentTree.enabled", "true")
        base, arrival_tree = alternating(to_noop(plain), to_noop(arrival))
        without_tree = (f"{plain_default:.2f}s (segment tree off), " if plain_default is not None
                        else "segment tree off not timed, ")
        print(f"  {width}: plain {without_tree}{base.median:.2f}s {base.shown} (on); arrival "
              f"{arrival_tree.median:.2f}s {arrival_tree.shown}", flush=True)
        results.append(paired(
            f"sqlstream RANGE {width} ({label}), 1M rows", "ties='peers' (Spark plain frame), segment tree on", base,
            "ties='arrival'", arrival_tree, GOAL,
            also=(f"plain frame, segment tree off (Spark default), one run: {plain_default:.2f}s "
                  f"({plain_default / base.median:.1f}x the segment tree)") if plain_default is not None
            else "plain frame, segment tree off: not timed at this width (1,092 s on 2026-11-25)"))
    return results
