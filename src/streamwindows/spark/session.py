"""Session settings the engine needs for one step only."""

from __future__ import annotations

from contextlib import contextmanager


@contextmanager
def session_setting(spark, key: str, value: str):
    """The session's ``key`` set to ``value`` for the block, then put back as it was
    (an unset key unset again, so Spark's default applies)."""
    previous = spark.conf.get(key, None)
    spark.conf.set(key, value)
    try:
        yield
    finally:
        if previous is None:
            spark.conf.unset(key)
        else:
            spark.conf.set(key, previous)
