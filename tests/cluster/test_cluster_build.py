"""The project builds unchanged on a real multi-process Spark cluster (`--target
cluster`: a standalone master and two workers on 127.0.0.1, each executor its own
JVM) and every model table equals the local build's. The build is a representative
selection, one SQL and one Python model of each engine's (each kind of plan: RANGE
with bounds, the field dimension's tumbling, value-range and per-group plans, count
windows in SQL and with user aggregates, Fenl's per-row and cron windows, panes and
their merge, interval semantics) with what they read: the data tests ran on the
local build, and the whole project on a cluster adds no plan these do not run.

The executors run a lean interpreter that has only pyspark, pandas, pyarrow and numpy,
not the project: the Python models' engine must reach them by itself (addPyFile).

A `proof` test (make test-all): in `make test`, tests/e2e/test_project_build.py's
test_build_runs_every_node_successfully builds the same models on the embedded Spark,
and test_same_output_whatever_the_shuffle_partitions checks they do not depend on how
the rows are partitioned."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cluster.conftest import CLUSTER_DIR, executor_folders
from tests.conftest import PROJECT_DIR, SPARK_DIR
from tests.warehouse_tables import assert_same_tables, built_tables
from tests.window_kinds import example_models

# One model of each window kind (tests/window_kinds.py).
SELECTED = example_models()


@pytest.mark.proof
@pytest.mark.cluster
def test_cluster_build_equals_local_build(project_build, spark, cluster, lean_python):
    assert cluster.alive_workers() == 2
    env = {
        **os.environ,
        "PYSPARK_PYTHON": lean_python,  # the executors' Python workers
        "SPARK_MASTER_URL": cluster.master_url,
        "STREAM_WINDOWS_SPARK_DIR": str(CLUSTER_DIR),
        "SPARK_DRIVER_MEMORY": "2g",
    }
    dbt = str(Path(sys.executable).parent / "dbt")
    before = {worker: executor_folders(worker) for worker in ("worker-0", "worker-1")}
    completed = subprocess.run(
        [dbt, "build", "--full-refresh", "--target", "cluster", "--exclude-resource-type", "test",
         "--exclude-resource-type", "unit_test",
         "--select", *[f"+{m}" for m in SELECTED], "--project-dir", str(PROJECT_DIR),
         "--profiles-dir", str(PROJECT_DIR), "--target-path", str(CLUSTER_DIR / "target"),
         "--log-path", str(CLUSTER_DIR / "logs")],
        env=env, capture_output=True, text=True, timeout=1200,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]

    run_results = json.loads((CLUSTER_DIR / "target" / "run_results.json").read_text())
    built = [r["unique_id"].split(".")[-1] for r in run_results["results"]
             if r["unique_id"].startswith("model.") and r["status"] == "success"]
    assert set(SELECTED) <= set(built)
    # The build ran on the cluster: both workers launched executors for its application.
    for worker in ("worker-0", "worker-1"):
        assert executor_folders(worker) - before[worker], f"{worker} ran no executor for this build"
    tables = built_tables(CLUSTER_DIR / "target", kinds=("model",))
    assert set(SELECTED) <= set(tables)
    assert_same_tables(spark, tables, SPARK_DIR, CLUSTER_DIR)
