"""dbt over a Spark Connect server (`--target connect`): seeds, SQL and Python models
and their data tests, from dbt processes that hold a client session only; two of them
started at the same moment, as a scheduler's overlapping jobs, on the catalog the
server owns. Every table equals the embedded build's.

The whole project over Connect (with workers that lack the project, then a scheduled
run, the incremental path, and `dbt docs generate`) and the project's hourly and daily
jobs started together are the proof tier's (test_whole_project_on_servers.py)."""

from __future__ import annotations

import pytest

from tests.conftest import SPARK_DIR
from tests.deployment.conftest import dbt_started
from tests.warehouse_tables import assert_same_tables, built_tables

pytestmark = pytest.mark.usefixtures("project_build")

# Two jobs with nothing in common but the server: a SQL model (RANGE, incremental with
# input fingerprints) and a Python model (interval semantics on the engine), each with
# what it reads and the document's expected rows its data tests compare with.
SQL_JOB = ["+weather_minmax_24h", "expected_results__weather_minmax_24h",
           "expected_results__weather_minmax_24h__one_wrong_row"]
PYTHON_JOB = ["+validity_events_count", "expected_results__validity_events_count"]


def test_two_jobs_started_together_over_connect_equal_the_embedded_build(connect_server, spark):
    jobs = {"sql_job": dbt_started(connect_server, "build", "--select", *SQL_JOB, run="sql_job"),
            "python_job": dbt_started(connect_server, "build", "--select", *PYTHON_JOB, run="python_job")}
    for name, job in jobs.items():
        output, _ = job.communicate(timeout=1200)
        assert job.returncode == 0, f"{name}:\n{output[-6000:]}"
        assert "PASS=" in output and "ERROR=0" in output, output[-3000:]

    schema = connect_server.catalog / "warehouse" / "stream_windows.db"
    # The Python model's build staged its input fingerprints and committed them.
    assert (schema / "validity_events_count__input_fingerprints" / "committed=true").is_dir()

    tables = sorted({*built_tables(connect_server.catalog / "sql_job" / "target"),
                     *built_tables(connect_server.catalog / "python_job" / "target")})
    assert {"weather", "weather_minmax_24h", "validity_events", "validity_events_count"} <= set(tables)
    assert_same_tables(spark, tables, SPARK_DIR, connect_server.catalog)

