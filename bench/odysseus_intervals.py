"""Odysseus interval semantics (the engine on Spark, whole groups per call) against the
time Spark takes to sort the boundaries alone: 1,000,000 events over 1,000 groups, one
stream ordered by start across the groups (as the semantics require: 100 events per
time unit, a group's events 10 units apart), about 10 valid at any time in a group
(lifetimes 1-199); COUNT, SUM, MAX per elementary interval."""

from __future__ import annotations

from bench.harness import time_query

ROWS = 1_000_000
GROUPS = 1_000
# Against the boundary sort, a floor no plan can beat: the goal of 1.0 needs the
# baseline of a plain SQL query computing the same pieces, not built yet.
GOAL = 3.0


def run(spark) -> list[dict]:
    from streamwindows.spark import interval_aggregate_spark

    path = ".spark/bench/interval_events"
    spark.sql(f"""
        select seq, grp, valid_from, valid_from + 1 + pmod(hash(seq, 7), 199) as valid_to,
               cast(pmod(hash(seq, 11), 1000) as double) / 10 as price
        from (
            select id + 1 as seq, pmod(id, {GROUPS}) as grp, id div 100 as valid_from
            from range({ROWS})
        )
    """).write.mode("overwrite").parquet(path)
    events = spark.read.parquet(path)
    events.createOrReplaceTempView("bench_interval_events")
    base_s = time_query(spark, """
        select grp, boundary from (
            select grp, valid_from as boundary from bench_interval_events
            union all
            select grp, valid_to as boundary from bench_interval_events
        ) order by grp, boundary
    """)
    result = interval_aggregate_spark(events, start="valid_from", end="valid_to", group_by="grp", arrival="seq",
                                      aggregates={"events_valid": "count(*)", "price_sum": "sum(price)",
                                                  "max_price": "max(price)"})
    result.createOrReplaceTempView("bench_interval_result")
    measured_s = time_query(spark, "select * from bench_interval_result")
    pieces = spark.sql("select count(*) as n from bench_interval_result").first()["n"]
    print(f"  intervals: sort boundaries {base_s:.2f}s, interval semantics {measured_s:.2f}s ({pieces:,} pieces)",
          flush=True)
    return [{
        "benchmark": "Odysseus interval semantics COUNT/SUM/MAX, 1M events, 1k groups",
        "baseline": "ORDER BY grp, boundary over the 2M boundaries", "baseline_s": base_s,
        "measured": "interval_aggregate_spark", "measured_s": measured_s,
        "ratio": measured_s / base_s, "goal": GOAL, "also": f"{pieces:,} elementary intervals emitted",
    }]
