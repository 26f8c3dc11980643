"""The field dimension and the count window on a standalone Spark cluster (context, no
goals, no speed claim on two cores): to show that their plans run distributed, on
executors in other processes, and give the rows the embedded local Spark gives.

`run` (in the benchmark's local session) writes 1M-row streams, starts a master and two
one-core workers on 127.0.0.1 (scripts/standalone_cluster.py), and runs this module as a
child process whose Spark is the profile's `cluster` target (the same settings, its own
catalog). The child times each workload (one untimed run, then the median of 3), writes
its rows to Parquet and reports which executors ran tasks. The parent times the same on
the local session and checks the rows equal (`except all` both ways, doubles to 9
decimals)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

from bench import streambase_field_dimension, streaminsight_count_windows
from bench.harness import PROJECT_DIR, compile_inline, spark_session, to_noop

ROWS = 1_000_000
DATA = PROJECT_DIR / ".spark" / "bench" / "cluster"
TRADES = str(DATA / "trades")
COUNT_EVENTS = str(DATA / "count_window_events")


def _workloads(spark) -> dict:
    """name -> (what it is, a function building the DataFrame): the same on either side."""
    trades = spark.read.parquet(TRADES)
    spark.read.parquet(COUNT_EVENTS).createOrReplaceTempView("bench_count_events")
    count_sql = streaminsight_count_windows.count_window_sql()
    return {
        "field dimension": ("StreamBase tumbling 30/30 (field_dimension_aggregate_spark, Python engine)",
                            lambda: streambase_field_dimension.engine(trades, 30, 30)),
        "count window": ("StreamInsight count window N=100 (count_window_aggregate, SQL)",
                         lambda: spark.sql(count_sql)),
    }


def _comparable(frame):
    """Doubles to 9 decimals: a floating sum depends on the order Spark adds the input
    splits' partial sums, which differ between the two (as the cluster test compares)."""
    from pyspark.sql import functions as F

    floating = {f.name for f in frame.schema.fields if f.dataType.simpleString() in ("double", "float")}
    return frame.select(*[F.round(c, 9).alias(c) if c in floating else F.col(c) for c in frame.columns])


def _time(build) -> tuple[float, list[float]]:
    action = to_noop(build)
    action()  # untimed
    runs = []
    for _ in range(3):
        started = time.perf_counter()
        action()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs), runs


def child(out_dir: str) -> None:
    """In the cluster's driver: time each workload, write its rows, report the executors."""
    compile_inline("select 1")  # starts the `cluster` target's Spark (DBT_TARGET)
    spark = spark_session()
    spark.sparkContext.setLogLevel("ERROR")
    report = {"master": spark.sparkContext.master, "workloads": {}}
    for name, (_, build) in _workloads(spark).items():
        seconds, runs = _time(build)
        build().write.mode("overwrite").parquet(f"{out_dir}/{name.replace(' ', '_')}")
        report["workloads"][name] = {"seconds": seconds, "runs": runs}
    store = spark._jsc.sc().statusStore()
    executors = spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(store.executorList(True))
    report["executors"] = {e.id(): {"host": e.hostPort(), "tasks": e.totalTasks()} for e in executors}
    print("REPORT " + json.dumps(report), flush=True)


def run(spark) -> list[dict]:
    sys.path.insert(0, str(PROJECT_DIR / "scripts"))
    import standalone_cluster

    streambase_field_dimension.make_trades(spark, ROWS, TRADES)
    streaminsight_count_windows.make_events(spark, COUNT_EVENTS, ROWS)
    out_dir = str(DATA / "cluster_rows")
    cluster = standalone_cluster.start(workers=2, cores=1, memory="3g", worker_python=sys.executable,
                                       state_dir=DATA / "processes")
    try:
        env = {**os.environ, "DBT_TARGET": "cluster", "SPARK_MASTER_URL": cluster.master_url,
               "STREAM_WINDOWS_SPARK_DIR": str(DATA / "driver"), "SPARK_DRIVER_MEMORY": "2g",
               "PYTHONPATH": str(PROJECT_DIR)}
        done = subprocess.run([sys.executable, "-m", "bench.on_cluster", out_dir], env=env, cwd=PROJECT_DIR,
                              capture_output=True, text=True, timeout=1800)
    finally:
        standalone_cluster.stop(cluster)
    lines = [line for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the cluster's driver failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    report = json.loads(lines[-1].removeprefix("REPORT "))
    if not report["master"].startswith("spark://"):
        raise AssertionError(f"the child's Spark ran on {report['master']}, not the standalone cluster")
    workers = {k: v for k, v in report["executors"].items() if k != "driver"}
    busy = {k: v["tasks"] for k, v in workers.items() if v["tasks"] > 0}
    if len(busy) < 2:
        raise AssertionError(f"expected tasks on both executors, got {report['executors']}")

    results = []
    for name, (what, build) in _workloads(spark).items():
        local_s, local_runs = _time(build)
        cluster_rows = _comparable(spark.read.parquet(f"{out_dir}/{name.replace(' ', '_')}"))
        local_rows = _comparable(build())
        differing = (local_rows.exceptAll(cluster_rows).count() + cluster_rows.exceptAll(local_rows).count())
        rows = cluster_rows.count()
        if differing or not rows:
            raise AssertionError(f"{name}: the cluster's rows and the local rows differ in {differing} of {rows}")
        remote = report["workloads"][name]
        print(f"  {name}: local {local_s:.2f}s, cluster {remote['seconds']:.2f}s ({rows:,} rows, equal)", flush=True)
        results.append({
            "benchmark": f"on a standalone cluster: {what}, {ROWS // 1_000_000}M rows",
            "baseline": "the same on the embedded local Spark (median of 3)", "baseline_s": local_s,
            "measured": "a master and two one-core workers on this machine (median of 3)",
            "measured_s": remote["seconds"], "ratio": remote["seconds"] / local_s, "goal": None,
            "also": f"{rows:,} rows, equal to the local rows (doubles to 9 decimals); tasks per executor over "
                    f"the child's whole run { {k: v['tasks'] for k, v in sorted(workers.items())} }; no speed claim: "
                    "both sides share the same two cores",
        })
    return results


if __name__ == "__main__":
    child(sys.argv[1])
