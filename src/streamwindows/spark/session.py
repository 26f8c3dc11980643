"""What the engine keeps in the session for one step: a setting, a cache.

dbt runs models in threads (the profile's ``threads``) that share one SparkSession, so
both are kept per thread: a setting changed for one model's step must not be put back
under another model's, and a cache one model's write still reads must not be dropped
by another model's next step.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

# A session setting is the whole session's: threads that change one take turns.
_SETTING = threading.RLock()
# (thread, DataFrame): the caches kept until their thread's next cache (see cached_until_next).
_KEPT: list = []
_KEPT_LOCK = threading.Lock()


@contextmanager
def session_setting(spark, key: str, value: str):
    """The session's ``key`` set to ``value`` for the block, then put back as it was
    (an unset key unset again, so Spark's default applies). One thread at a time runs
    such a block: two threads' blocks would otherwise put back each other's value."""
    with _SETTING:
        previous = spark.conf.get(key, None)
        spark.conf.set(key, value)
        try:
            yield
        finally:
            if previous is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, previous)


def cached_until_next(df, storage_level):
    """``df`` persisted at ``storage_level``, kept until this thread caches the next
    DataFrame (or ends), whose counts a numbering read from this cache: the DataFrame a
    step returns reads it until dbt writes the model, and a recomputed one could differ
    (a range partitioning samples its bounds anew). The caches of this thread's earlier
    steps, and of threads that have ended (a dbt run's pool), are dropped first, so a long
    session keeps one cache per live thread."""
    me = threading.current_thread()
    with _KEPT_LOCK:
        stale = [d for t, d in _KEPT if t is me or not t.is_alive()]
        _KEPT[:] = [(t, d) for t, d in _KEPT if t is not me and t.is_alive()]
    for frame in stale:
        frame.unpersist()
    kept = df.persist(storage_level)
    with _KEPT_LOCK:
        _KEPT.append((me, kept))
    return kept
