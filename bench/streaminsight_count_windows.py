"""StreamInsight count windows (count_window_aggregate's generated SQL) against Spark's
plain ROWS frame on the same data, same run, both with the profile's settings (segment
tree on): N = 100 distinct start times, SUM/AVG/MAX per group, 10,000,000 events over
500 groups, about 3 events per group at each start time (so a window holds ~300 events,
the ROWS frame 100). Alternating rounds (bench/rounds.py), judged by the medians.

The macro reads a catalog relation, as a model's ref() gives, so it knows the column
types and takes its per-start plan (docs/spark-plans.md). Beside the goal row, for
context: the event plan it takes over a CTE name on the same data, and the per-start
plan's worst case, one event per start time (nothing to aggregate first), and what a
check of repeated arrival positions would add to the macro (it sorts start times, not
arrival: the check would be a window of its own), which is why the macro leaves that
to the arrival_unique test."""

from __future__ import annotations

from bench.arrival_check import check_cost
from bench.harness import compile_inline, to_noop
from bench.rounds import alternating, paired

ROWS = 10_000_000
GROUPS = 500
GOAL = 1.0  # at or below the nearest native frame
UNIQUE_PATH = ".spark/bench/count_window_unique"


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


# The macro's plans, told apart by the subquery each names.
PLAN_MARKS = {"per start": "as _sw_starts", "events": "as _sw_ranked"}


def count_window_sql(view: str = "bench_count_events", plan: str = "per start") -> str:
    """The macro's SQL over `view`: read as a catalog relation (as ref() gives: column
    types known, the per-start plan) or, for plan="events", named as a CTE would be."""
    relation = f"api.Relation.create(identifier='{view}')" if plan == "per start" else f"'{view}'"
    sql = compile_inline(
        f"{{{{ count_window_aggregate({relation}, time_column='start_at', n=100, group_by='grp', "
        "arrival_order='seq', aggregates={'reading_sum': 'sum(reading)', 'reading_avg': 'avg(reading)', "
        "'reading_max': 'max(reading)'}) }}"
    )
    if PLAN_MARKS[plan] not in sql:
        raise RuntimeError(f"count_window_aggregate did not take the {plan} plan the benchmark names")
    return sql


def rows_frame(view: str) -> str:
    return f"""
        select *, sum(reading) over w as reading_sum, avg(reading) over w as reading_avg,
               max(reading) over w as reading_max
        from {view}
        window w as (partition by grp order by start_at, seq rows between 99 preceding and current row)
    """


def run(spark) -> list[dict]:
    make_events(spark)
    frame = rows_frame("bench_count_events")
    results = []
    for plan, goal, named in [("per start", GOAL, "count_window_aggregate over a ref() (OutOfOrder check included)"),
                              ("events", None, "count_window_aggregate over a CTE name: the event plan (context)")]:
        base, measured = alternating(to_noop(frame), to_noop(count_window_sql(plan=plan)))
        print(f"  count window N=100 ({plan} plan): ROWS frame {base.median:.2f}s {base.shown}, count window "
              f"{measured.median:.2f}s {measured.shown}", flush=True)
        results.append(paired("StreamInsight count window N=100, SUM/AVG/MAX, 10M events, 500 groups",
                              "ROWS BETWEEN 99 PRECEDING AND CURRENT ROW", base, named, measured, goal))
    # The price of a repeated-arrival check in the macro's own query.
    results.append(check_cost(spark, "StreamInsight count window N=100, 10M events, 500 groups",
                              "count_window_aggregate over a ref() (per start plan)", "bench_count_events", "grp",
                              count_window_sql))
    # The per-start plan's worst case: every start time once, so aggregating per start
    # time first saves nothing.
    spark.sql("select seq, grp, timestamp_seconds(1700000000 + seq) as start_at, reading from bench_count_events") \
        .write.mode("overwrite").parquet(UNIQUE_PATH)
    spark.read.parquet(UNIQUE_PATH).createOrReplaceTempView("bench_count_unique")
    base, measured = alternating(to_noop(rows_frame("bench_count_unique")),
                                 to_noop(count_window_sql("bench_count_unique")))
    print(f"  count window N=100, one event per start time: ROWS frame {base.median:.2f}s {base.shown}, count window "
          f"{measured.median:.2f}s {measured.shown}", flush=True)
    results.append(paired("StreamInsight count window N=100, 10M events, 500 groups, one event per start time",
                          "ROWS BETWEEN 99 PRECEDING AND CURRENT ROW", base,
                          "count_window_aggregate over a ref(): the per-start plan's worst case (context)", measured,
                          None))
    return results
