"""The spark_session adapter plugin: Python models in the dbt process's SparkSession."""

from __future__ import annotations

import json
import types
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR, rows, run_dbt

FIXTURE = Path(__file__).parent / "fixture_project"
SCHEMA = "stream_windows_adapter_fixture"


@pytest.fixture(scope="module")
def fixture_build(spark):
    return run_dbt("build", project_dir=FIXTURE)


def test_python_model_builds_in_session_as_parquet(fixture_build, spark):
    statuses = {r.node.name: str(r.status) for r in fixture_build.result.results}
    assert statuses["fixture_station_spans"] == "success"
    assert rows(spark, f"select * from {SCHEMA}.fixture_station_report order by station") == [
        {"station": "north", "readings": 2, "value_span": 10, "is_spread": True},
        {"station": "south", "readings": 3, "value_span": 4, "is_spread": True},
    ]
    described = rows(spark, f"describe table extended {SCHEMA}.fixture_station_spans")
    detail = {r["col_name"]: r["data_type"] for r in described}
    assert detail["Provider"] == "parquet"


def test_python_model_is_in_the_lineage(fixture_build):
    manifest = json.loads((FIXTURE / "target" / "manifest.json").read_text())
    nodes = {n["name"]: n for n in manifest["nodes"].values()}
    python_model = nodes["fixture_station_spans"]
    assert python_model["language"] == "python"
    assert python_model["depends_on"]["nodes"] == ["model.adapter_fixture.fixture_readings_clean"]
    assert nodes["fixture_station_report"]["depends_on"]["nodes"] == ["model.adapter_fixture.fixture_station_spans"]


def test_empty_seed_cells_load_as_null_not_the_text_none(fixture_build, spark):
    notes = rows(spark, f"select reading_id, note from {SCHEMA}.fixture_readings order by reading_id")
    assert [r["note"] for r in notes] == [None, "calibrated", None, "late", None]


def test_session_submission_needs_a_session_connection():
    from dbt.adapters.spark.connections import SparkConnectionMethod
    from dbt.adapters.spark_session.python_submissions import (
        SessionConnectionRequired,
        SessionPythonJobHelper,
    )

    credentials = types.SimpleNamespace(method=SparkConnectionMethod.THRIFT, server_side_parameters={})
    with pytest.raises(SessionConnectionRequired) as raised:
        SessionPythonJobHelper({"alias": "weekly_totals", "config": {}}, credentials)
    message = str(raised.value)
    assert "Python model 'weekly_totals'" in message
    assert "needs `method: session` in the profile; got `method: thrift`" in message


def test_adapter_registers_session_submission_and_inherits_spark_macros():
    from dbt.adapters.spark.impl import SparkAdapter
    from dbt.adapters.spark_session import Plugin
    from dbt.adapters.spark_session.impl import SparkSessionAdapter

    assert issubclass(SparkSessionAdapter, SparkAdapter)
    assert Plugin.dependencies == ["spark"]  # dispatch falls back to spark__ macros
    assert SparkSessionAdapter.type() == "spark_session"
    adapter = SparkSessionAdapter.__new__(SparkSessionAdapter)
    assert adapter.default_python_submission_method == "session"
    assert {"session", "all_purpose_cluster", "job_cluster"} <= set(adapter.python_submission_helpers)


def test_project_profile_targets_use_the_plugin():
    import yaml

    profile = yaml.safe_load((PROJECT_DIR / "profiles.yml").read_text())["stream_windows"]["outputs"]
    for target in ("local", "cluster"):
        assert profile[target]["type"] == "spark_session"
        assert profile[target]["method"] == "session"


def test_a_metastore_locked_by_another_build_is_said_in_one_line(spark):
    # What a second build on the same catalog gets: Hive's failure to start its client,
    # with the Derby lock only deep in the JVM exception's causes (dbt-spark re-raises
    # pyspark's error as a DbtRuntimeError from it).
    from dbt.adapters.spark_session.connections import metastore_locked_message
    from dbt_common.exceptions import DbtRuntimeError
    from pyspark.errors.exceptions.captured import AnalysisException

    jvm = spark.sparkContext._jvm
    derby = jvm.java.sql.SQLException(
        "Another instance of Derby may have already booted the database /work/x/.spark/metastore_db."
    )
    hive = jvm.java.lang.RuntimeException(
        "Unable to instantiate org.apache.hadoop.hive.ql.metadata.SessionHiveMetaStoreClient",
        jvm.java.lang.RuntimeException("Failed to start database '/work/x/.spark/metastore_db'", derby),
    )
    captured = AnalysisException(origin=hive)
    try:
        try:
            raise captured
        except AnalysisException as exc:
            raise DbtRuntimeError(str(exc)) from exc
    except DbtRuntimeError as wrapped:
        message = metastore_locked_message(wrapped)
    assert message == (
        "The Spark metastore /work/x/.spark/metastore_db is in use by another process: another dbt build or "
        "Spark session is running on this catalog (embedded Derby admits one). Wait for it to finish, or give "
        "this run its own catalog folder (the profile's spark_dir)."
    )
    assert metastore_locked_message(DbtRuntimeError("[TABLE_OR_VIEW_NOT_FOUND] weather")) is None


def test_spark_dir_pins_the_warehouse_and_metastore_to_one_folder(tmp_path):
    from dbt.adapters.spark_session.connections import SparkSessionCredentials

    credentials = SparkSessionCredentials(
        method="session", host="localhost", schema="analytics", spark_dir=str(tmp_path / "catalog"),
        server_side_parameters={"spark.sql.session.timeZone": "UTC"},
    )
    settings = credentials.server_side_parameters
    assert settings["spark.sql.warehouse.dir"] == str(tmp_path / "catalog" / "warehouse")
    assert settings["spark.hadoop.javax.jdo.option.ConnectionURL"] == (
        f"jdbc:derby:;databaseName={tmp_path / 'catalog' / 'metastore_db'};create=true"
    )
    assert settings["spark.driver.extraJavaOptions"] == f"-Dderby.system.home={tmp_path / 'catalog'}"
    assert settings["spark.sql.session.timeZone"] == "UTC"
    explicit = SparkSessionCredentials(method="session", host="localhost", schema="analytics", spark_dir="/a",
                                       server_side_parameters={"spark.sql.warehouse.dir": "/b/warehouse"})
    assert explicit.server_side_parameters["spark.sql.warehouse.dir"] == "/b/warehouse"
