"""The proof tier's builds of the whole project on servers, each compared table by
table with the embedded build:
- every node over Spark Connect, its Python workers a lean interpreter without the
  project (the engine reaches them as the session's artifacts), then a scheduled run
  and `dbt docs generate`;
- the project's two scheduled jobs (tag:hourly and tag:daily, as the Dagster schedules
  start them) at the same moment over one Connect server;
- every SQL model over Thrift, then a scheduled run.
In `make test`, test_connect.py's test_two_jobs_started_together_over_connect_equal_the_embedded_build
and test_thrift.py's test_sql_models_over_thrift_equal_the_embedded_build
(a build) guard the same properties on one SQL model and one Python model."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import SPARK_DIR
from tests.deployment.conftest import dbt_on, dbt_started, running_server
from tests.warehouse_tables import assert_same_tables, built_tables

pytestmark = [pytest.mark.proof, pytest.mark.usefixtures("project_build")]


def _nodes(target) -> dict[str, int]:
    results = json.loads((target / "run_results.json").read_text())["results"]
    counts: dict[str, int] = {}
    for result in results:
        counts[result["status"]] = counts.get(result["status"], 0) + 1
    return counts


def test_the_whole_project_over_connect_equals_the_embedded_build(spark, lean_python):
    with running_server("connect", "connect-whole", python=lean_python, memory="4g") as server:
        started = time.monotonic()
        dbt_on(server, "build", run="build")
        seconds = time.monotonic() - started
        counts = _nodes(server.catalog / "build" / "target")
        print(f"\nwhole project over Connect: {counts} in {seconds:.0f} s")
        assert set(counts) == {"success", "pass"}, counts
        dbt_on(server, "build", run="scheduled")  # the scheduled run: the incremental models' path
        assert set(_nodes(server.catalog / "scheduled" / "target")) == {"success", "pass"}
        run_sql = (server.catalog / "scheduled" / "target" / "compiled" / "stream_windows" / "models" / "sqlstream"
                   / "weather_minmax_24h.sql").read_text()
        assert '"full": false' in run_sql  # the scheduled plan, not a rebuild
        dbt_on(server, "docs", "generate", run="docs")
        tables = built_tables(server.catalog / "build" / "target")
        assert len(tables) > 60
        assert_same_tables(spark, tables, SPARK_DIR, server.catalog)
        catalog = json.loads((server.catalog / "docs" / "target" / "catalog.json").read_text())
        documented = {key.rsplit(".", 1)[-1] for key in catalog["nodes"]}
        assert set(tables) <= documented


def test_the_hourly_and_daily_jobs_started_together_over_connect(spark):
    with running_server("connect", "connect-jobs") as server:
        # What the jobs read (seeds, staging, the expected rows), as an earlier run left it.
        dbt_on(server, "build", "--exclude", "tag:hourly", "tag:daily", run="inputs")
        jobs = {tag: dbt_started(server, "build", "--select", f"tag:{tag}", run=tag) for tag in ("hourly", "daily")}
        for tag, job in jobs.items():
            output, _ = job.communicate(timeout=3000)
            assert job.returncode == 0, f"{tag} job:\n{output[-6000:]}"
            print(f"\n{tag} job: {_nodes(server.catalog / tag / 'target')}")
        tables = sorted({*built_tables(server.catalog / "hourly" / "target"),
                         *built_tables(server.catalog / "daily" / "target")})
        assert len(tables) > 30
        assert_same_tables(spark, tables, SPARK_DIR, server.catalog)


def test_every_sql_model_over_thrift_equals_the_embedded_build(spark):
    with running_server("thrift", "thrift-whole") as server:
        # Python models, and what reads them, need a target that runs Python models.
        started = time.monotonic()
        dbt_on(server, "build", "--exclude", "path:python_models+", run="build")
        seconds = time.monotonic() - started
        counts = _nodes(server.catalog / "build" / "target")
        print(f"\nSQL models over Thrift: {counts} in {seconds:.0f} s")
        assert set(counts) == {"success", "pass"}, counts
        dbt_on(server, "build", "--exclude", "path:python_models+", run="scheduled")
        run_sql = (server.catalog / "scheduled" / "target" / "compiled" / "stream_windows" / "models" / "sqlstream"
                   / "weather_minmax_24h.sql").read_text()
        assert '"full": false' in run_sql  # the scheduled plan, not a rebuild
        tables = built_tables(server.catalog / "build" / "target")
        assert len(tables) > 40
        assert_same_tables(spark, tables, SPARK_DIR, server.catalog)
