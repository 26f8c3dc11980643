"""dbt-spark's `method: thrift` against a Spark Thrift Server (`--target thrift`): the
SQL models, their seeds (loaded by dbt-spark's own `insert ... values`) and data tests
equal the embedded build; a Python model fails at once, naming the method and the
targets that run Python models.

Every SQL model of the project over Thrift, then a scheduled run (the incremental
path), is the proof tier's (test_whole_project_on_servers.py)."""

from __future__ import annotations

import pytest

from tests.conftest import SPARK_DIR
from tests.deployment.conftest import dbt_on
from tests.deployment.test_connect import SQL_JOB
from tests.warehouse_tables import assert_same_tables, built_tables

pytestmark = pytest.mark.usefixtures("project_build")


def test_sql_models_over_thrift_equal_the_embedded_build(thrift_server, spark):
    built = dbt_on(thrift_server, "build", "--select", *SQL_JOB, run="build")
    assert "ERROR=0" in built.stdout

    tables = built_tables(thrift_server.catalog / "build" / "target")
    assert {"weather", "expected_results__weather_minmax_24h", "weather_minmax_24h"} <= set(tables)
    assert_same_tables(spark, tables, SPARK_DIR, thrift_server.catalog)


def test_a_python_model_over_thrift_fails_at_once_naming_the_targets_that_run_it(thrift_server):
    failed = dbt_on(thrift_server, "run", "--select", "validity_events_count", run="python", expect_success=False)
    assert failed.returncode == 1
    assert ("Python model 'validity_events_count' cannot run on `method: thrift`: it sends SQL statements only. "
            "Python models run on `method: session` (embedded Spark or a standalone cluster: targets local, "
            "cluster) or `method: connect` (a Spark Connect server: target connect); see docs/adapter.md."
            ) in failed.stdout
    # Refused before anything ran: no Java trace, no table, not even the side table.
    assert "at org.apache" not in failed.stdout + failed.stderr
    assert not list((thrift_server.catalog / "warehouse").glob("stream_windows.db/validity_events_count*"))
