"""Scheduled runs of a session model (SEMANTICS.md section 6, ruling 7.5): the
clickstream's sessions, built batch by batch, end with exactly the rows of a full
rebuild over the same input: sessions that span a batch boundary are extended and
closed, a late view under 'reprocess' that falls between two written sessions merges
them (and a day left with no session start loses its stale row), 'audit' keeps a late
view out and records it, 'error' fails the run naming it, and a run that dies after
its pre-hook dropped the partitions it rewrites is redone whole by the next. (Sessions
under dbt's microbatch: tests/incremental/test_microbatch.py.)

The harness replays the seed `page_views` under the staging view: it overwrites the
seed table with the views that have arrived so far, runs page_view_sessions_30m
incrementally, and compares it with a full rebuild (`except all`, both ways)."""

from __future__ import annotations

import pytest

from tests.conftest import DbtFailure, run_dbt
from tests.incremental.replay import SCHEMA, differing_rows

pytestmark = pytest.mark.usefixtures("project_build")

MODEL = "page_view_sessions_30m"
SEED = f"{SCHEMA}.page_views"
ALL_VIEWS = f"{SCHEMA}.sw_harness_all_page_views"
SNAPSHOT = f"{SCHEMA}.sw_harness_{MODEL}"
REPROCESS = ("--vars", "{late_rows: reprocess}")


@pytest.fixture(scope="module")
def views(spark):
    spark.sql(f"drop table if exists {ALL_VIEWS}")
    spark.sql(f"create table {ALL_VIEWS} using parquet as select * from {SEED}")
    total = spark.sql(f"select max(view_id) as n from {ALL_VIEWS}").first()["n"]

    def arrive(query: str) -> None:
        spark.sql(f"insert overwrite table {SEED} {query}")

    yield spark, total, arrive
    spark.sql(f"insert overwrite table {SEED} select * from {ALL_VIEWS}")
    spark.sql(f"drop table if exists {SCHEMA}.{MODEL}__late_rows")
    run_dbt("run", "--select", MODEL, "--full-refresh")
    spark.sql(f"drop table if exists {ALL_VIEWS}")
    spark.sql(f"drop table if exists {SNAPSHOT}")


def assert_equals_full_rebuild(spark, *vars_) -> int:
    """The model's table equals a full rebuild of the input it has now; returns its
    number of sessions."""
    spark.sql(f"drop table if exists {SNAPSHOT}")
    spark.sql(f"create table {SNAPSHOT} using parquet as select * from {SCHEMA}.{MODEL}")
    run_dbt("run", "--select", MODEL, "--full-refresh", *vars_)
    assert differing_rows(spark, MODEL, SNAPSHOT) == 0
    return spark.sql(f"select count(*) as n from {SNAPSHOT}").first()["n"]


def bridging_view(spark, view_id: int) -> tuple[str, str]:
    """A view of a user between two of the user's sessions that are 31 to 59 minutes
    apart (within a day, before the last day), timed in the middle of the pause: it
    joins both sessions into one. Returns (its insert query, the user)."""
    pause = spark.sql(f"""
        select user_id, viewed_at, next_at from (
            select user_id, viewed_at,
                   lead(viewed_at) over (partition by user_id order by viewed_at, view_id) as next_at
            from {ALL_VIEWS}
        ) where next_at > viewed_at + interval 31 minutes and next_at < viewed_at + interval 59 minutes
            and viewed_at < timestamp'2024-03-06 00:00:00'
        order by viewed_at limit 1""").first()
    query = (f"select {view_id} as view_id, '{pause['user_id']}' as user_id, "
             f"timestamp'{pause['viewed_at']}' + (timestamp'{pause['next_at']}' - timestamp'{pause['viewed_at']}') / 2 "
             "as viewed_at, '/late' as page, 1 as dwell_ms")
    return query, pause["user_id"]


def test_sessions_built_in_batches_with_a_merging_late_view_equal_a_full_rebuild(views):
    """Four batches cut inside sessions and across midnight, then a late view that
    bridges two written sessions of one user under 'reprocess': every step ends equal
    to a full rebuild, and the bridged user has one session fewer."""
    spark, total, arrive = views
    cuts = [900, 1700, 3100, total]
    arrive(f"select * from {ALL_VIEWS} where view_id <= {cuts[0]}")
    run_dbt("run", "--select", MODEL, "--full-refresh", *REPROCESS)
    for cut in cuts[1:]:
        arrive(f"select * from {ALL_VIEWS} where view_id <= {cut}")
        run_dbt("run", "--select", MODEL, *REPROCESS)
    sessions = assert_equals_full_rebuild(spark, *REPROCESS)
    late, user = bridging_view(spark, total + 1)
    spark.sql(f"insert into {SEED} {late}")
    before = spark.sql(f"select count(*) as n from {SCHEMA}.{MODEL} where user_id = '{user}'").first()["n"]
    run_dbt("run", "--select", MODEL, *REPROCESS)
    after = spark.sql(f"select count(*) as n from {SCHEMA}.{MODEL} where user_id = '{user}'").first()["n"]
    assert after == before - 1
    assert assert_equals_full_rebuild(spark, *REPROCESS) == sessions - 1


# One user's views over a midnight: a session [23:20 .. 00:15] and, 40 minutes later,
# one at 00:55, the only session starting on day 2. A late view at 00:35 merges them
# into one session starting on day 1, which leaves day 2 with no session at all.
SMALL = """select * from values
    (1, 'u1', timestamp'2024-03-04 23:20:00', '/', 1),
    (2, 'u1', timestamp'2024-03-04 23:50:00', '/cart', 1),
    (3, 'u1', timestamp'2024-03-05 00:15:00', '/cart', 1),
    (4, 'u1', timestamp'2024-03-05 00:55:00', '/', 1)
    as t(view_id, user_id, viewed_at, page, dwell_ms)"""
LATE_U1 = "select 5, 'u1', timestamp'2024-03-05 00:35:00', '/late', 1"


def sessions_now(spark) -> list[tuple]:
    return [(r["window_start"].strftime("%d %H:%M"), r["window_end"].strftime("%d %H:%M"), r["event_count"])
            for r in spark.table(f"{SCHEMA}.{MODEL}").orderBy("window_start").collect()]


def test_a_merge_that_empties_a_day_leaves_no_stale_session_even_when_the_run_dies_after_its_drop(views):
    """The late view's reach (00:35 - 30 minutes) is day 2, but the session it joins
    started on day 1: the run rewrites from day 1, and drops the partitions it rewrites
    before its write, since no row of the rewrite overwrites day 2's. A run that dies
    right after the drop leaves the start it recorded (day 1): the next run, with no new
    view, rewrites from there, where the written sessions alone (none left) would say
    day 2, and ends with the rows of a full rebuild."""
    spark, _, arrive = views
    arrive(SMALL)
    run_dbt("run", "--select", MODEL, "--full-refresh", *REPROCESS)
    assert sessions_now(spark) == [("04 23:20", "05 00:45", 3), ("05 00:55", "05 01:25", 1)]
    spark.sql(f"insert into {SEED} {LATE_U1}")
    result = run_dbt("run", "--select", MODEL, *REPROCESS, failpoint="after_prepare", expect_success=False)
    assert "failpoint 'after_prepare' reached" in str(result.result.results[0].message)
    assert sessions_now(spark) == []
    run_dbt("run", "--select", MODEL, *REPROCESS)
    assert sessions_now(spark) == [("04 23:20", "05 01:25", 5)]
    properties = {r[0] for r in spark.sql(f"show tblproperties {SCHEMA}.{MODEL}").collect()}
    assert "stream_windows.sessions_from" not in properties
    assert_equals_full_rebuild(spark, *REPROCESS)


def test_a_late_view_fails_the_run_by_default_and_is_audited_under_audit(views):
    spark, _, arrive = views
    arrive(SMALL)
    run_dbt("run", "--select", MODEL, "--full-refresh")
    spark.sql(f"insert into {SEED} {LATE_U1}")
    with pytest.raises(DbtFailure, match=r"1 late row\(s\); the first, view_id 5 \(user_id=u1\), has viewed_at "
                                         r"2024-03-05 00:35:00, before 2024-03-05 00:55:00"):
        run_dbt("run", "--select", MODEL)
    spark.sql(f"drop table if exists {SCHEMA}.{MODEL}__late_rows")
    run_dbt("run", "--select", MODEL, "--vars", "{late_rows: audit}")
    assert [r["view_id"] for r in spark.table(f"{SCHEMA}.{MODEL}__late_rows").collect()] == [5]
    assert sessions_now(spark) == [("04 23:20", "05 00:45", 3), ("05 00:55", "05 01:25", 1)]
    spark.sql(f"drop table if exists {SCHEMA}.{MODEL}__late_rows")

