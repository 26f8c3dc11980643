"""StreamInsight count windows (count_window_aggregate's generated SQL) against Spark's
plain ROWS frame on the same data, same run, both with the profile's settings (segment
tree on): N = 100 distinct start times, SUM/AVG/MAX per group, 10,000,000 events over
500 groups, about 3 events per group at each start time (so a window holds ~300 events,
the ROWS frame 100)."""

from __future__ import annotations

from bench.harness import compile_inline, time_query

ROWS = 10_000_000
GROUPS = 500
GOAL = 1.0  # at or below the nearest native frame


def make_events(spark, path: str = ".spark/bench/count_window_events") -> None:
    spark.sql(f"""
        select
            id + 1 as seq,
            pmod(hash(id, 3), {GROUPS}) as grp,
            timestamp_seconds(1700000000 + id div 1500) as start_at,
            cast(pmod(hash(id, 5), 1000) as double) / 10 as reading
        from range({ROWS})
    """).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_count_events")


def run(spark) -> list[dict]:
    make_events(spark)
    base_s = time_query(spark, """
        select *, sum(reading) over w as reading_sum, avg(reading) over w as reading_avg,
               max(reading) over w as reading_max
        from bench_count_events
        window w as (partition by grp order by start_at, seq rows between 99 preceding and current row)
    """)
    sql = compile_inline(
        "{{ count_window_aggregate('bench_count_events', time_column='start_at', n=100, group_by='grp', "
        "arrival_order='seq', aggregates={'reading_sum': 'sum(reading)', 'reading_avg': 'avg(reading)', "
        "'reading_max': 'max(reading)'}) }}"
    )
    measured_s = time_query(spark, sql)
    print(f"  count window N=100: ROWS frame {base_s:.2f}s, count window {measured_s:.2f}s", flush=True)
    return [{
        "benchmark": "StreamInsight count window N=100, SUM/AVG/MAX, 10M events, 500 groups",
        "baseline": "ROWS BETWEEN 99 PRECEDING AND CURRENT ROW", "baseline_s": base_s,
        "measured": "count_window_aggregate (OutOfOrder check included)", "measured_s": measured_s,
        "ratio": measured_s / base_s, "goal": GOAL, "also": "",
    }]
