"""Session windows against Spark's own: a 30-minute gap per user, COUNT/SUM/MIN/MAX,
10,000,000 events of 100,000 users (ten sessions of ten events each, two minutes
apart, the sessions six hours apart, each user's day shifted by up to an hour).

- baseline: GROUP BY user_id, session_window(event_at, '30 minutes'), Spark's native
  sessions (sorted per key, merged by its session operators);
- measured: session_window_aggregate with the same gap and aggregates, which also gives
  window_time and is_final and refuses a repeated arrival position (one window pass
  flags the events that open a session, a running sum numbers them, a GROUP BY
  aggregates each). Both read the same parquet files and compute every output row; the
  sessions (bounds, counts, sums, extremes) are checked equal.
Alternating rounds (bench/rounds.py), 6 (5 timed), judged by the medians.
"""

from __future__ import annotations

from bench.harness import compile_inline, to_noop
from bench.rounds import alternating, paired

ROWS = 10_000_000
USERS = 100_000
GOAL = 1.0
ROUNDS = 6
AGGREGATES = ("{'events': 'count(*)', 'amount_sum': 'sum(amount)', 'amount_min': 'min(amount)', "
              "'amount_max': 'max(amount)'}")


def make_events(spark, rows: int = ROWS, path: str = ".spark/bench/session_events") -> None:
    """Event id i is user i % USERS's (i // USERS)-th: ten sessions of ten events."""
    spark.sql(f"""
        select id + 1 as seq, concat('u', cast(id % {USERS} as string)) as user_id,
               timestamp_seconds(1704067200 + pmod(hash(id % {USERS}), 3600)
                                 + cast(floor(id / {USERS} / 10) as bigint) * 21600
                                 + cast(floor(id / {USERS}) % 10 as bigint) * 120) as event_at,
               cast(pmod(hash(id, 11), 1000) as bigint) as amount
        from range({rows})
    """).write.mode("overwrite").parquet(path)
    spark.read.parquet(path).createOrReplaceTempView("bench_session_events")


BASELINE = """
    select user_id, session_window.start as window_start, session_window.end as window_end, count(*) as events,
           sum(amount) as amount_sum, min(amount) as amount_min, max(amount) as amount_max
    from bench_session_events group by user_id, session_window(event_at, '30 minutes')
"""


def sessions_sql() -> str:
    return compile_inline(
        "{{ session_window_aggregate('bench_session_events', time_column='event_at', gap=\"INTERVAL '30' MINUTE\", "
        f"partition_by='user_id', arrival_order='seq', aggregates={AGGREGATES}) }}}}")


def run(spark) -> list[dict]:
    make_events(spark)
    baseline, measured_sql = BASELINE, sessions_sql()
    base, measured = alternating(to_noop(baseline), to_noop(measured_sql), rounds=ROUNDS)
    columns = "user_id, window_start, window_end, events, amount_sum, amount_min, amount_max"
    differing = spark.sql(f"""
        select count(*) as n from (
            (select {columns} from ({baseline}) except all select {columns} from ({measured_sql}))
            union all
            (select {columns} from ({measured_sql}) except all select {columns} from ({baseline}))
        )
    """).first()["n"]
    sessions = spark.sql(f"select count(*) as n from ({measured_sql})").first()["n"]
    print(f"  sessions, 30-minute gap: session_window {base.median:.2f}s {base.shown}, session_window_aggregate "
          f"{measured.median:.2f}s {measured.shown} ({sessions:,} sessions, {differing} differing rows)", flush=True)
    if differing:
        raise AssertionError(f"session_window_aggregate differs from session_window in {differing} rows")
    return [paired("Sessions, 30-minute gap, 10M events, 100k users",
                   "GROUP BY user_id, session_window(event_at, '30 minutes')", base,
                   "session_window_aggregate(gap=\"INTERVAL '30' MINUTE\")", measured, GOAL,
                   also=f"{sessions:,} sessions, equal to session_window's")]
