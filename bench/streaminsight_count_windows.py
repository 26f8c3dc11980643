"""StreamInsight count windows (count_window_aggregate's generated SQL) against Spark's
plain ROWS frame on the same data, same run, both with the profile's settings (segment
tree on): N = 100 distinct start times, SUM/AVG/MAX per group, 10,000,000 events over
500 groups, about 3 events per group at each start time (so a window holds ~300 events,
the ROWS frame 100). Alternating rounds (bench/rounds.py), judged by the medians."""

from __future__ import annotations

from bench.harness import compile_inline, to_noop
from bench.rounds import alternating, paired

ROWS = 10_000_000
GROUPS = 500
GOAL = 1.0  # at or below the nearest native frame


def make_events(spark, path: str = ".spark/bench/count_window_events", rows: int = ROWS) -> None:
    spark.sql(f"""
        select
            id + 1 as seq,
            pmod(hash(id, 3), {GROUPS}) as grp,
            timestamp_seconds(1700000000 + id div 1500) as start_at,
            cast(pmod(hash(id, 5), 1000) as double) / 10 as reading
        from range({rows})
    """).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_count_events")


def count_window_sql(view: str = "bench_count_events") -> str:
    return compile_inline(
        f"{{{{ count_window_aggregate('{view}', time_column='start_at', n=100, group_by='grp', "
        "arrival_order='seq', aggregates={'reading_sum': 'sum(reading)', 'reading_avg': 'avg(reading)', "
        "'reading_max': 'max(reading)'}) }}"
    )


def run(spark) -> list[dict]:
    make_events(spark)
    frame = """
        select *, sum(reading) over w as reading_sum, avg(reading) over w as reading_avg,
               max(reading) over w as reading_max
        from bench_count_events
        window w as (partition by grp order by start_at, seq rows between 99 preceding and current row)
    """
    sql = count_window_sql()
    base, measured = alternating(to_noop(frame), to_noop(sql))
    print(f"  count window N=100: ROWS frame {base.median:.2f}s {base.shown}, count window {measured.median:.2f}s "
          f"{measured.shown}", flush=True)
    return [paired("StreamInsight count window N=100, SUM/AVG/MAX, 10M events, 500 groups",
                   "ROWS BETWEEN 99 PRECEDING AND CURRENT ROW", base,
                   "count_window_aggregate (OutOfOrder check included)", measured, GOAL)]
