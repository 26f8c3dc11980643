"""A stand-alone replay of the real hourly temperatures, one step per process, for the
interrupted-run test (which kills such a process mid-build). Its own Spark and catalog
(STREAM_WINDOWS_SPARK_DIR, set by the caller): the test session's Derby metastore admits
one JVM only.

    python -m tests.incremental.replay_driver STEP ...   # steps run in order, in this process

    setup               seed the hourly temperatures, keep every reading aside
    (every build step builds replay.KILLED_RUN_MODELS, one model per incremental mechanism)
    first:<seq>         the readings up to <seq> arrive; full build (prints "building", "built")
    next:<seq>          the readings up to <seq> arrive; incremental run (same prints)
    compare:<seq>       snapshot the models, rebuild them whole; JSON: differing rows, row counts
                        of the snapshots and of the rebuilt tables
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ["DBT_PROFILES_DIR"] = str(PROJECT_DIR)
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

from tests.dbt_in_process import DbtInProcess  # noqa: E402
from tests.incremental.replay import FULL, SCHEMA, SEED, differing_rows  # noqa: E402
from tests.incremental.replay import KILLED_RUN_MODELS as MODELS  # noqa: E402, N814

SELECT = ["--select", *MODELS]


_DBT = DbtInProcess()  # the project parsed once per process: its steps' commands share it


def dbt(*args: str) -> None:
    spark_dir = os.environ["STREAM_WINDOWS_SPARK_DIR"]
    result = _DBT.invoke([*args, "--no-write-json"], project_dir=PROJECT_DIR, locations=[
        "--profiles-dir", str(PROJECT_DIR), "--target-path", spark_dir + "/target", "--log-path", spark_dir + "/logs"])
    if not result.success:
        raise SystemExit(f"dbt {' '.join(args)} failed: {result.exception or result.result}")


def spark():
    """The profile's session (a dbt compile starts it when no step has yet)."""
    from pyspark import SparkContext
    from pyspark.sql import SparkSession

    if SparkContext._active_spark_context is None:
        dbt("compile", "--select", MODELS[0])
    return SparkSession.builder.getOrCreate()


def step(command: str, last_seq: str | None) -> None:
    if command == "setup":
        dbt("seed", "--select", "hourly_temperatures", "--full-refresh")
        dbt("run", "--select", "stg_vega__hourly_temperatures")
        spark().sql(f"drop table if exists {FULL}")
        spark().sql(f"create table {FULL} using parquet as select * from {SEED}")
    elif command in ("first", "next"):
        spark().sql(f"insert overwrite table {SEED} select * from {FULL} where seq <= {last_seq}")
        print("building", flush=True)
        dbt("run", *SELECT, *(["--full-refresh"] if command == "first" else []))
        print("built", flush=True)
    elif command == "compare":
        session = spark()
        session.sql(f"insert overwrite table {SEED} select * from {FULL} where seq <= {last_seq}")
        snapshots = {}
        for model in MODELS:
            snapshots[model] = f"{SCHEMA}.sw_replay_{model}"
            session.sql(f"drop table if exists {snapshots[model]}")
            session.sql(f"create table {snapshots[model]} using parquet as select * from {SCHEMA}.{model}")
        dbt("run", *SELECT, "--full-refresh")
        print(json.dumps({"differing": {m: differing_rows(session, m, s) for m, s in snapshots.items()},
                          "rows": {m: session.table(s).count() for m, s in snapshots.items()},
                          "rebuilt_rows": {m: session.table(f"{SCHEMA}.{m}").count() for m in MODELS}}), flush=True)
    else:
        raise SystemExit(f"unknown step {command}")


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        name, _, seq = arg.partition(":")
        step(name, seq or None)
