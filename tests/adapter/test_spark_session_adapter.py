"""The spark_session adapter plugin: Python models in the dbt process's SparkSession."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

from tests.adapter.fixture_project_paths import FIXTURE, SCHEMA
from tests.conftest import PROJECT_DIR, SPARK_DIR, rows, run_dbt


@pytest.fixture(scope="module")
def fixture_build(spark):
    return run_dbt("build", project_dir=FIXTURE, write_json=True)  # the test reads manifest.json


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


def test_docs_generate_after_a_run_in_the_same_session_leaves_out_its_temporary_views(fixture_build, spark):
    """An incremental model's `__dbt_tmp` view outlives its run in the session, and `show
    table extended` lists it with no schema: dbt-spark's catalog then failed `dbt docs
    generate --no-compile` in that session (`'NoneType' object has no attribute 'lower'`;
    with compiling, dbt's relation cache filtered the view out by schema)."""
    spark.sql("create or replace temporary view fixture_leftover__dbt_tmp as select 1 as id")
    try:
        run_dbt("docs", "generate", "--no-compile", project_dir=FIXTURE)
    finally:
        spark.sql("drop view if exists fixture_leftover__dbt_tmp")
    catalog = json.loads((FIXTURE / "target" / "catalog.json").read_text())
    assert not catalog["errors"]
    assert "model.adapter_fixture.fixture_station_spans" in catalog["nodes"]
    assert all(node["metadata"]["schema"] == SCHEMA for node in catalog["nodes"].values())


def test_session_submission_needs_a_dataframe_connection():
    from dbt.adapters.spark.connections import SparkConnectionMethod
    from dbt.adapters.spark_session.python_submissions import (
        SessionConnectionRequired,
        SessionPythonJobHelper,
    )

    credentials = types.SimpleNamespace(method=SparkConnectionMethod.THRIFT, server_side_parameters={})
    with pytest.raises(SessionConnectionRequired) as raised:
        SessionPythonJobHelper({"alias": "weekly_totals", "config": {}}, credentials)
    assert raised.value.msg == (
        "Python model 'weekly_totals' cannot run on `method: thrift`: it sends SQL statements only. Python models "
        "run on `method: session` (embedded Spark or a standalone cluster: targets local, cluster) or `method: "
        "connect` (a Spark Connect server: target connect); see docs/adapter.md.")
    for method in ("session", "connect"):
        helper = SessionPythonJobHelper({"alias": "weekly_totals"}, types.SimpleNamespace(method=method))
        assert helper.credentials.method == method


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
    methods = {target: (output["type"], output["method"]) for target, output in profile.items()}
    assert methods == {"local": ("spark_session", "session"), "cluster": ("spark_session", "session"),
                       "connect": ("spark_session", "connect"), "thrift": ("spark_session", "thrift")}
    # A server's targets send session settings only: the server started with the rest.
    static = {"spark.master", "spark.sql.warehouse.dir", "spark.driver.memory",
              "spark.hadoop.javax.jdo.option.ConnectionURL"}
    for target in ("connect", "thrift"):
        assert not static & set(profile[target]["server_side_parameters"])
        assert set(profile[target]["server_side_parameters"]) < set(profile["local"]["server_side_parameters"])


def test_a_second_process_on_a_busy_metastore_fails_at_once_in_one_line(spark, tmp_path):
    """A real second process: the suite's Spark holds the embedded Derby metastore of
    .spark/pytest, and a `dbt run` on the same catalog (the repository's profile) fails
    before its own JVM starts, in one line, without Java traces."""
    spark.sql("show databases").collect()  # this process's metastore is booted, its lock held
    started = time.monotonic()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "dbt"), "run", "--select", "weather_minmax_24h",
         "--project-dir", str(PROJECT_DIR), "--target-path", str(tmp_path / "target"),
         "--log-path", str(tmp_path / "logs")],
        cwd=PROJECT_DIR, env=os.environ, capture_output=True, text=True, timeout=300)
    seconds = time.monotonic() - started
    assert done.returncode != 0
    assert (f"The Spark metastore {SPARK_DIR / 'metastore_db'} is in use by another process: another dbt build or "
            "Spark session is running on this catalog") in done.stdout, done.stdout[-3000:]
    console = done.stdout + done.stderr
    assert "\tat org.apache" not in console and "Another instance of Derby" not in console
    assert seconds < 60, seconds  # at once, not after Hive's 40 seconds of retries


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
        "Spark session is running on this catalog (embedded Derby admits one). Wait for it to finish, give "
        "this run its own catalog folder (the profile's spark_dir), or let a server own the catalog so builds can "
        "overlap (target connect or thrift; docs/adapter.md)."
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
    log4j = Path(settings["spark.driver.extraJavaOptions"].split("-Dlog4j2.configurationFile=")[1])
    assert settings["spark.driver.extraJavaOptions"] == (
        f"-Dderby.system.home={tmp_path / 'catalog'} -Dlog4j2.configurationFile={log4j}"
    )
    assert "logger.executor.level = off" in log4j.read_text()  # shipped with the plugin
    assert settings["spark.sql.session.timeZone"] == "UTC"
    explicit = SparkSessionCredentials(method="session", host="localhost", schema="analytics", spark_dir="/a",
                                       server_side_parameters={"spark.sql.warehouse.dir": "/b/warehouse"})
    assert explicit.server_side_parameters["spark.sql.warehouse.dir"] == "/b/warehouse"


def test_spark_dir_brings_the_settings_an_embedded_spark_under_dbt_needs():
    from dbt.adapters.spark_session.connections import SparkSessionCredentials

    defaults = SparkSessionCredentials(method="session", host="localhost", schema="analytics", spark_dir="/a",
                                       server_side_parameters={}).server_side_parameters
    assert defaults["spark.ui.showConsoleProgress"] == "false"
    assert defaults["spark.log.level"] == "ERROR"
    assert defaults["spark.sql.hive.metastorePartitionPruningFallbackOnException"] == "true"
    assert defaults["spark.hadoop.hive.stats.autogather"] == "false"
    assert 8 <= int(defaults["spark.sql.shuffle.partitions"]) <= 4 * max(2, os.cpu_count() or 2)
    assert defaults["spark.sql.session.timeZone"] == "UTC"
    # Explicit settings win; without spark_dir nothing is added.
    mine = {"spark.sql.shuffle.partitions": "64", "spark.sql.session.timeZone": "Europe/Oslo"}
    explicit = SparkSessionCredentials(method="session", host="localhost", schema="analytics", spark_dir="/a",
                                       server_side_parameters=mine).server_side_parameters
    assert explicit["spark.sql.shuffle.partitions"] == "64"
    assert explicit["spark.sql.session.timeZone"] == "Europe/Oslo"
    bare = SparkSessionCredentials(method="session", host="localhost", schema="analytics",
                                   server_side_parameters={"spark.master": "local[2]"}).server_side_parameters
    assert {*bare} - {"spark.master"} == {"spark.sql.ansi.enabled"}  # dbt-spark's own


def test_a_seed_value_that_does_not_parse_fails_naming_it_and_keeps_the_table(spark, tmp_path):
    """dbt-spark casts each typed CSV value, and Spark makes NULL of a value it cannot
    parse: a malformed time would load as NULL and the raw value be lost. The plugin
    fails the seed instead, naming the value, its row and column, before the table is
    touched."""
    project = tmp_path / "fixture_project"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("target", "logs"))
    (project / "seeds" / "_typed_times.yml").write_text(
        "version: 2\nseeds:\n  - name: fixture_typed_times\n"
        "    config:\n      column_types: {seq: int, read_at: timestamp, value: int}\n")
    csv = project / "seeds" / "fixture_typed_times.csv"
    good = "seq,read_at,value\n1,2020-01-01 00:00:00,5\n2,2020-01-01 01:00:00,6\n3,2020-01-01 02:00:00,7\n"
    table = f"{SCHEMA}.fixture_typed_times"
    spark.sql(f"drop table if exists {table}")
    try:
        csv.write_text(good.replace("2020-01-01 02:00:00", "2020-13-01 02:00:00"))
        failed = run_dbt("seed", "--select", "fixture_typed_times", project_dir=project, expect_success=False)
        message = " ".join(" ".join(str(r.message).split()) for r in failed.result.results)
        assert ("seed fixture_typed_times: the value '2020-13-01 02:00:00' of column read_at at row 3 "
                "(line 4 of the CSV file; seq=3) does not parse as timestamp (column_types)") in message, message
        assert not spark.catalog.tableExists(table)
        csv.write_text(good)
        run_dbt("seed", "--select", "fixture_typed_times", project_dir=project)
        loaded = rows(spark, f"select seq, cast(read_at as string) as read_at, value from {table} order by seq")
        assert [r["read_at"] for r in loaded] == ["2020-01-01 00:00:00", "2020-01-01 01:00:00", "2020-01-01 02:00:00"]
        # A bad value in an integer column fails too, and the seed keeps its last table.
        csv.write_text(good.replace(",6\n", ",six\n"))
        failed = run_dbt("seed", "--select", "fixture_typed_times", project_dir=project, expect_success=False)
        message = " ".join(" ".join(str(r.message).split()) for r in failed.result.results)
        assert ("the value 'six' of column value at row 2 (line 3 of the CSV file; seq=2) "
                "does not parse as int") in message, message
        assert rows(spark, f"select seq, cast(read_at as string) as read_at, value from {table} order by seq") == loaded
    finally:
        spark.sql(f"drop table if exists {table}")


def test_seed_rows_load_with_dbt_sparks_types_and_values(spark, tmp_path):
    """Seeds load through the session's DataFrame writer with the types dbt infers and
    the values dbt-spark's `insert ... values (cast(%s as type))` gives: whole numbers as
    bigint, decimals as double, booleans, dates, times, text with a
    quote, empty cells NULL, and a column_types override cast from the raw text."""
    project = tmp_path / "fixture_project"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("target", "logs"))
    (project / "seeds" / "_kinds.yml").write_text(
        "version: 2\nseeds:\n  - name: fixture_kinds\n    config:\n      column_types: {code: int}\n")
    (project / "seeds" / "fixture_kinds.csv").write_text(
        "n,x,flag,day,at,label,code\n"
        "1,0.1,true,2020-01-31,2020-01-31 23:59:58,it's,007\n"
        "2,,false,,,,\n"
        "3,-2.5,,2020-02-29,2020-02-29 00:00:00,plain,12\n")
    table = f"{SCHEMA}.fixture_kinds"
    try:
        run_dbt("seed", "--select", "fixture_kinds", project_dir=project)
        types_ = {f.name: f.dataType.simpleString() for f in spark.table(table).schema.fields}
        assert types_ == {"n": "bigint", "x": "double", "flag": "boolean", "day": "date", "at": "timestamp",
                          "label": "string", "code": "int"}
        loaded = rows(spark, f"select n, x, flag, cast(day as string) as day, cast(at as string) as at, label, code "
                             f"from {table} order by n")
        assert loaded == [
            {"n": 1, "x": 0.1, "flag": True, "day": "2020-01-31", "at": "2020-01-31 23:59:58", "label": "it's",
             "code": 7},
            {"n": 2, "x": None, "flag": False, "day": None, "at": None, "label": None, "code": None},
            {"n": 3, "x": -2.5, "flag": None, "day": "2020-02-29", "at": "2020-02-29 00:00:00", "label": "plain",
             "code": 12},
        ]
    finally:
        spark.sql(f"drop table if exists {table}")


def test_a_connect_target_needs_a_connect_url_and_a_server_that_answers():
    import socket

    from dbt.adapters.spark_session.connections import SparkSessionCredentials, connect_session
    from dbt_common.exceptions import DbtRuntimeError

    with pytest.raises(DbtRuntimeError, match="method: connect needs a Spark Connect URL as its host, such as "
                                              "sc://127.0.0.1:15002; got host: 127.0.0.1"):
        SparkSessionCredentials(method="connect", host="127.0.0.1", schema="analytics")
    assert SparkSessionCredentials(method="connect", host="sc://127.0.0.1:15002", schema="a").method == "connect"
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        url = f"sc://127.0.0.1:{s.getsockname()[1]}"
    with pytest.raises(DbtRuntimeError) as raised:
        connect_session(url, {})
    assert raised.value.msg.startswith(f"The Spark Connect server {url} does not answer (")
    assert raised.value.msg.endswith("): start it (make connect-up) or correct the profile's host")
    assert "SPARK_REMOTE" not in os.environ  # refused before this process was pointed at it


# Python models as dbt's documentation writes them: no file_format.
PLAIN_TABLE = '''import pandas as pd


def model(dbt, session):
    dbt.config(materialized="table")
    return pd.DataFrame({"id": [1, 2], "label": ["a", "b"]})
'''
PLAIN_INCREMENTAL = '''def model(dbt, session):
    dbt.config(materialized="incremental")
    if dbt.is_incremental:
        latest = session.sql(f"select max(id) as id from {dbt.this}").first()["id"]
        return session.createDataFrame([(latest + 1, "next")], "id bigint, label string")
    return session.createDataFrame([(1, "a"), (2, "b")], "id bigint, label string")
'''
DELTA_PYTHON = '''def model(dbt, session):
    dbt.config(materialized="table", file_format="delta")
    return session.createDataFrame([(1,)], "id bigint")
'''
DELTA_SQL = "{{ config(materialized='table', file_format='delta') }}\nselect 1 as id\n"


def test_python_models_without_file_format_are_written_as_sql_models_are(spark, tmp_path):
    """dbt-spark's Python write names delta when a model has no file_format, which
    open-source Spark has no source for; a SQL model gets the session's default source.
    The plugin writes both alike (parquet here), as a table and incrementally; a format
    the session lacks fails its model in one line naming the format and the ways out,
    for Python and SQL models alike."""
    project = tmp_path / "fixture_project"
    shutil.copytree(FIXTURE, project, ignore=shutil.ignore_patterns("target", "logs"))
    config = project / "dbt_project.yml"
    config.write_text(config.read_text().replace("    +file_format: parquet\n", "", 1))
    assert "+file_format" not in config.read_text().split("seeds:")[0]
    models = project / "models"
    for name, text in {"plain_table.py": PLAIN_TABLE, "plain_incremental.py": PLAIN_INCREMENTAL,
                       "delta_python.py": DELTA_PYTHON, "delta_sql.sql": DELTA_SQL}.items():
        (models / name).write_text(text)
    tables = [f"{SCHEMA}.{m}" for m in ("plain_table", "plain_incremental", "delta_python", "delta_sql")]
    try:
        for _ in range(2):  # a build, then an incremental run
            run_dbt("run", "--select", "plain_table", "plain_incremental", project_dir=project)
        for table in tables[:2]:
            detail = {r["col_name"]: r["data_type"] for r in rows(spark, f"describe table extended {table}")}
            assert detail["Provider"] == "parquet", table
        assert rows(spark, f"select id, label from {tables[0]} order by id") == [
            {"id": 1, "label": "a"}, {"id": 2, "label": "b"}]
        assert rows(spark, f"select id, label from {tables[1]} order by id") == [
            {"id": 1, "label": "a"}, {"id": 2, "label": "b"}, {"id": 3, "label": "next"}]
        failed = run_dbt("run", "--select", "delta_python", "delta_sql", project_dir=project, expect_success=False)
        messages = {r.node.name: str(r.message) for r in failed.result.results}
        ways_out = ("has file_format 'delta', which this Spark session has no data source for. Either add the "
                    "format's jars to the session (spark.jars.packages in the profile's server_side_parameters, "
                    "or installed on the cluster or server), or build it as parquet (file_format: parquet, or no "
                    "file_format: Spark's default source).")
        # dbt's header names the model and its file; then the one line, and no Java trace.
        assert messages["delta_python"].splitlines() == [
            "Runtime Error in model delta_python (models/delta_python.py)",
            f"  Model 'delta_python' {ways_out}"], messages
        assert messages["delta_sql"].splitlines() == [
            "Runtime Error in model delta_sql (models/delta_sql.sql)", f"  The model {ways_out}"], messages
        assert not any(spark.catalog.tableExists(t) for t in tables[2:])
    finally:
        for table in tables:
            spark.sql(f"drop table if exists {table}")
