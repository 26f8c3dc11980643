"""dbt runs a profile's `threads` models at once in one SparkSession: what one model's
step keeps in the session (a numbering's cache, a setting) must survive another
model's step in another thread."""

from __future__ import annotations

import threading

from pyspark import StorageLevel

from streamwindows.spark.numbering import numbered
from streamwindows.spark.session import cached_until_next, session_setting


def in_thread(action, *, hold: threading.Event | None = None) -> threading.Thread:
    """Runs `action` in a new thread and waits for it; with `hold`, the thread then
    stays alive until `hold` is set (a dbt thread between two models)."""
    done = threading.Event()
    errors: list = []

    def run():
        try:
            action()
        except BaseException as error:  # surfaced in the test's thread below
            errors.append(error)
        done.set()
        if hold is not None:
            hold.wait(60)

    thread = threading.Thread(target=run)
    thread.start()
    done.wait(120)
    assert not errors, errors
    return thread


def reads_a_cache(frame) -> bool:
    """Whether Spark plans `frame` over a cached relation (a DataFrame derived from a
    persisted one is not `is_cached` itself)."""
    return "InMemoryRelation" in frame._jdf.queryExecution().withCachedData().toString()


def test_a_threads_cache_outlives_other_threads_steps_and_goes_at_its_next(spark):
    hold = threading.Event()
    mine = cached_until_next(spark.range(100), StorageLevel.MEMORY_ONLY)
    frames = {}
    other = in_thread(lambda: frames.update(other=cached_until_next(spark.range(50), StorageLevel.MEMORY_ONLY)),
                      hold=hold)
    try:
        # Another model's step in another thread keeps this thread's cache, which the
        # numbering's counts were read from.
        assert mine.is_cached and frames["other"].is_cached
        again = cached_until_next(spark.range(10), StorageLevel.MEMORY_ONLY)
        # This thread's next step drops its own earlier cache only.
        assert not mine.is_cached and again.is_cached and frames["other"].is_cached
    finally:
        hold.set()
        other.join(60)
    # A thread that has ended (a finished dbt run's pool) has its cache dropped at the
    # next step of any thread.
    last = cached_until_next(spark.range(5), StorageLevel.MEMORY_ONLY)
    assert not frames["other"].is_cached and not again.is_cached and last.is_cached
    last.unpersist()


def test_numbering_in_another_thread_leaves_a_numbered_frame_cached(spark):
    rows = spark.range(0, 2000).selectExpr("id", "(id * 7919) % 2000 as key")
    first = numbered(rows, [rows["key"]])
    second_rows = spark.range(0, 300).selectExpr("id as key")
    in_thread(lambda: numbered(second_rows, [second_rows["key"]]).count())
    # The first numbering's ranges are still cached: its numbers are the ones its counts
    # were taken from, each key's rank.
    assert reads_a_cache(first)
    got = sorted((r["key"], r["emit_seq"]) for r in first.select("key", "emit_seq").collect())
    assert got == [(k, k) for k in range(2000)]


def test_a_setting_changed_by_two_threads_is_put_back(spark):
    key = "spark.sql.inMemoryColumnarStorage.batchSize"
    before = spark.conf.get(key)
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def hold_setting():
        with session_setting(spark, key, "1234"):
            inside.set()
            release.wait(60)
            seen["a"] = spark.conf.get(key)

    first = threading.Thread(target=hold_setting)
    first.start()
    inside.wait(60)

    def second():
        with session_setting(spark, key, "4321"):
            seen["b"] = spark.conf.get(key)

    late = threading.Thread(target=second)
    late.start()
    late.join(0.5)
    # The second thread waits for the first's block: the first sees its own value.
    assert late.is_alive()
    release.set()
    first.join(60)
    late.join(60)
    assert seen == {"a": "1234", "b": "4321"}
    assert spark.conf.get(key) == before
