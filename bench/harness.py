"""Shared benchmark plumbing: one embedded Spark (the project's `local` profile, started
through dbt), macro SQL compiled by dbt, timing of a query run to completion
(alternating rounds: bench/rounds.py)."""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[1]
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ.setdefault("STREAM_WINDOWS_SPARK_DIR", str(PROJECT_DIR / ".spark" / "bench"))
os.environ.setdefault("DBT_PROFILES_DIR", str(PROJECT_DIR))
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")


def compile_inline(jinja: str) -> str:
    """The SQL dbt compiles from a macro call (also starts the profile's Spark)."""
    import contextlib
    import io

    from dbt.cli.main import dbtRunner

    with contextlib.redirect_stdout(io.StringIO()):  # dbt echoes the compiled SQL
        result = dbtRunner().invoke(
            ["compile", "--quiet", "--inline", jinja, "--project-dir", str(PROJECT_DIR),
             "--profiles-dir", str(PROJECT_DIR), "--target-path", str(PROJECT_DIR / ".spark" / "bench" / "target")]
        )
    if not result.success:
        raise RuntimeError(f"dbt compile failed: {result.exception}")
    return result.result.results[0].node.compiled_code


def spark_session():
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()


def time_query(spark, sql: str, repeats: int = 3, statistic=statistics.median) -> float:
    """Wall time of running `sql` to completion (every row computed, none kept): the
    median of `repeats` runs, or another `statistic` (min for second-long queries, whose
    median on this shared 2-core machine swings by a third from run to run)."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        spark.sql(sql).write.format("noop").mode("overwrite").save()
        times.append(time.perf_counter() - started)
    return statistic(times)


def to_noop(sql_or_build) -> Callable[[], None]:
    """An action that computes every row and keeps none: a SQL text, or a function that
    builds a DataFrame (called inside the action, so the jobs an engine runs while
    building, such as its validation and numbering, are timed too)."""
    if isinstance(sql_or_build, str):
        return lambda: spark_session().sql(sql_or_build).write.format("noop").mode("overwrite").save()
    return lambda: sql_or_build().write.format("noop").mode("overwrite").save()

