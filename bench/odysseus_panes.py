"""Hopping windows from partial aggregates (the panes technique) against Spark's own
hopping windows: a 7-day window advancing by 1 day, SUM/AVG/MAX/COUNT per group,
10,000,000 events of 1,000 groups over one year.

- baseline: GROUP BY grp, window(ts, '7 days', '1 day'), which copies every input row
  into the 7 windows holding it;
- measured: partial_aggregate into daily panes, then merge_partial_aggregates with
  window={'size': '7 days', 'advance': '1 day'}, which copies each pane's state row
  instead (about 27 events per group and day here). Both read the same parquet files
  and compute every output row; the results are checked equal.
For context, the daily panes alone as they are and behind a check of repeated arrival
positions (a pane groups by time, not arrival: the check would be a sort of its own,
which is why partial_aggregate leaves it to the arrival_unique test).
Alternating rounds (bench/rounds.py), judged by the medians.
"""

from __future__ import annotations

from bench.arrival_check import check_cost
from bench.harness import compile_inline, to_noop
from bench.rounds import alternating, paired

ROWS = 10_000_000
GROUPS = 1_000
GOAL = 0.5
AGGREGATES = ("{'amount_sum': 'sum(amount)', 'amount_avg': 'avg(amount)', 'amount_max': 'max(amount)', "
              "'events': 'count(*)'}")


def make_events(spark, rows: int = ROWS, path: str = ".spark/bench/pane_events") -> None:
    # One event every ~3.15 s from 2024 on, group by hash, integral amounts (exact sums).
    spark.sql(f"""
        select id + 1 as seq, pmod(hash(id, 7), {GROUPS}) as grp,
               timestamp_seconds(1704067200 + cast(id * 3.15 as bigint)) as event_at,
               cast(pmod(hash(id, 11), 1000) as bigint) as amount
        from range({rows})
    """).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_pane_events")


BASELINE = """
    select grp, window.start as window_start, window.end as window_end, sum(amount) as amount_sum,
           avg(amount) as amount_avg, max(amount) as amount_max, count(*) as events
    from bench_pane_events group by grp, window(event_at, '7 days', '1 day')
"""


def partials_sql(view: str = "bench_pane_events") -> str:
    return compile_inline(
        f"{{{{ partial_aggregate('{view}', group_by=['grp'], "
        f"pane={{'time_column': 'event_at', 'size': '1 day'}}, aggregates={AGGREGATES}) }}}}")


def merged_sql(spark) -> str:
    """The 7-day windows from daily panes of bench_pane_events (a view: timed from the raw events)."""
    spark.sql(partials_sql()).createOrReplaceTempView("bench_daily_partials")
    return compile_inline(
        f"{{{{ merge_partial_aggregates('bench_daily_partials', group_by=['grp'], aggregates={AGGREGATES}, "
        "window={'size': '7 days', 'advance': '1 day'}) }}")


def run(spark) -> list[dict]:
    make_events(spark)
    baseline, merged = BASELINE, merged_sql(spark)
    base, measured = alternating(to_noop(baseline), to_noop(merged))
    columns = "grp, window_start, window_end, amount_sum, round(amount_avg, 9), amount_max, events"
    differing = spark.sql(f"""
        select count(*) as n from (
            (select {columns} from ({baseline}) except all select {columns} from ({merged}))
            union all
            (select {columns} from ({merged}) except all select {columns} from ({baseline}))
        )
    """).first()["n"]
    windows = spark.sql(f"select count(*) as n from ({merged})").first()["n"]
    print(f"  7-day/1-day windows: window() {base.median:.2f}s {base.shown}, merged daily panes "
          f"{measured.median:.2f}s {measured.shown} "
          f"({windows:,} windows, {differing} differing rows)", flush=True)
    if differing:
        raise AssertionError(f"merged panes differ from window() in {differing} rows")
    results = [paired("7-day windows by 1 day from daily partials, 10M events, 1k groups",
                      "GROUP BY grp, window(ts, '7 days', '1 day')", base,
                      "partial_aggregate (daily panes) + merge_partial_aggregates(window=...)", measured, GOAL,
                      also=f"{windows:,} windows, equal to window()'s rows")]
    results.append(check_cost(spark, "Odysseus daily panes, 10M events, 1k groups", "partial_aggregate (daily panes)",
                              "bench_pane_events", "grp", partials_sql))
    return results
