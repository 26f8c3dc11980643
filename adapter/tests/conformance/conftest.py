"""dbt's shared adapter suites (dbt-tests-adapter) against the spark_session plugin.

Run in a pytest process of their own (tests/adapter/test_dbt_adapter_suites.py starts
it): every class builds its project with dbt in this process, and the first connection
starts the one embedded Spark of the run, whose warehouse and Derby metastore are a
fresh folder (`spark_dir`), so the suites never meet the project's catalogs.

    pytest adapter/tests/conformance          # every suite
    pytest adapter/tests/conformance -m python_models
"""

from __future__ import annotations

import os

import pytest

# dbt-core's own fixtures for adapter suites (project, adapter, unique_schema, ...);
# imported, not listed in pytest_plugins, so this folder can also be collected by a
# run started elsewhere.
from dbt.tests.fixtures.project import *  # noqa: F403

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")


def pytest_configure(config):
    config.addinivalue_line("markers", "python_models: dbt's Python model suites (make test runs these)")


@pytest.fixture(scope="session")
def spark_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("spark")


# Where the suites reach Spark (tests/adapter/test_dbt_adapter_suites.py sets these):
# `session`, an embedded Spark in this process; `cluster`, the same session driving a
# standalone cluster's executors (CONFORMANCE_MASTER); `connect` or `thrift`, a server
# already running at CONFORMANCE_HOST:CONFORMANCE_PORT, which owns the catalog.
TARGET = os.environ.get("CONFORMANCE_TARGET", "session")


@pytest.fixture(scope="session")
def dbt_profile_target(spark_dir):
    # No `database`: on Spark a schema is the database, and dbt-spark accepts it only
    # absent or equal to the schema, which each class sets to a schema of its own.
    if TARGET in ("session", "cluster"):
        master = os.environ["CONFORMANCE_MASTER"] if TARGET == "cluster" else "local[2]"
        return {"type": "spark_session", "method": "session", "host": "localhost", "threads": 1,
                "spark_dir": str(spark_dir),
                "server_side_parameters": {"spark.master": master, "spark.driver.memory": "2g",
                                           "spark.ui.enabled": "false"}}
    host, port = os.environ["CONFORMANCE_HOST"], int(os.environ["CONFORMANCE_PORT"])
    if TARGET == "connect":
        return {"type": "spark_session", "method": "connect", "host": f"sc://{host}:{port}", "threads": 1}
    if TARGET == "thrift":
        return {"type": "spark_session", "method": "thrift", "host": host, "port": port, "threads": 1}
    raise ValueError(f"CONFORMANCE_TARGET must be session, cluster, connect or thrift, not {TARGET!r}")


@pytest.fixture(autouse=True)
def _python_models_need_a_python_session(request):
    if TARGET == "thrift" and request.node.get_closest_marker("python_models"):
        pytest.skip("a Thrift server runs SQL statements only: the adapter refuses Python models on method: thrift")


@pytest.fixture(scope="class")
def logs_dir(tmp_path_factory, prefix):
    """dbt's logs in the run's temporary folder (the fixture's default is <rootdir>/logs)."""
    path = tmp_path_factory.mktemp("dbt-logs") / prefix
    os.environ["DBT_LOG_PATH"] = str(path)
    yield str(path)
    os.environ.pop("DBT_LOG_PATH", None)
