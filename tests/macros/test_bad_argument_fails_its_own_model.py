"""A window macro's bad argument fails the model that has it, when that model compiles
to run, and nothing else: `dbt parse` succeeds, and a build of other models goes on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR, run_dbt

SCHEMA = "stream_windows_bad_arguments"

PROJECT_YML = f"""
name: bad_arguments
version: "1.0.0"
config-version: 2
profile: stream_windows
model-paths: ["models"]
seed-paths: ["seeds"]
models:
  bad_arguments:
    +schema: {SCHEMA.removeprefix('stream_windows_')}
    +file_format: parquet
    +materialized: table
  stream_windows:
    +enabled: false
seeds:
  bad_arguments:
    +schema: {SCHEMA.removeprefix('stream_windows_')}
    +file_format: parquet
  stream_windows:
    +enabled: false
data_tests:
  stream_windows:
    +enabled: false
"""

READINGS = "seq,city,reading_at,temp\n1,Denver,2024-01-01 10:00:00,10\n2,Oslo,2024-01-01 11:00:00,-3\n"

# One model per macro family, each with one argument no macro accepts.
BAD_MODELS = {
    "bad_range": "{{ stream_windows.range_window_aggregate(relation=ref('readings'), time_column='reading_at', "
                 "range=\"INTERVAL '1' HOUR\", ties='strict', arrival_order='seq', aggregates={'m': 'max(temp)'}) }}",
    "bad_rows": "{{ stream_windows.rows_window_aggregate(relation=ref('readings'), rows=-1, arrival_order='seq', "
                "aggregates={'s': 'sum(temp)'}) }}",
    "bad_count": "{{ config(materialized='incremental', incremental_strategy='insert_overwrite', "
                 "partition_by=['time_partition']) }}\n"
                 "{{ stream_windows.count_window_aggregate(relation=ref('readings'), time_column='reading_at', n=0, "
                 "group_by=['city'], arrival_order='seq', aggregates={'s': 'sum(temp)'}, "
                 "incremental={'partition': 'week'}) }}",
    "bad_fenl": "{{ stream_windows.fenl_aggregate(relation=ref('readings'), entity='city', time_column='reading_at', "
                "arrival_order='seq', window=stream_windows.fenl_since(period='weekly'), "
                "aggregates={'s': 'sum(temp)'}) }}",
    "bad_partial": "{{ stream_windows.partial_aggregate(relation=ref('readings'), group_by=['city'], "
                   "pane={'time_column': 'reading_at', 'size': 'a while'}, aggregates={'s': 'sum(temp)'}) }}",
    "bad_merge": "{{ stream_windows.merge_partial_aggregates(relation=ref('readings'), group_by=['city'], "
                 "aggregates={'s': 'sum(temp)'}, window={'size': '7 days'}) }}",
}
GOOD_MODEL = ("{{ stream_windows.rows_window_aggregate(relation=ref('readings'), rows=1, arrival_order='seq', "
              "aggregates={'temp_sum_2': 'sum(temp)'}) }}")


@pytest.fixture(scope="module")
def project(tmp_path_factory, spark) -> Path:
    root = tmp_path_factory.mktemp("bad_arguments")
    (root / "models").mkdir()
    (root / "seeds").mkdir()
    (root / "dbt_project.yml").write_text(PROJECT_YML)
    (root / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    (root / "seeds" / "readings.csv").write_text(READINGS)
    (root / "seeds" / "_seeds.yml").write_text(
        "version: 2\nseeds:\n  - name: readings\n    config:\n"
        "      column_types: {seq: int, city: string, reading_at: timestamp, temp: int}\n")
    for name, sql in {**BAD_MODELS, "good_rows": GOOD_MODEL}.items():
        (root / "models" / f"{name}.sql").write_text(sql + "\n")
    run_dbt("deps", project_dir=root)
    yield root
    shutil.rmtree(root / "dbt_packages", ignore_errors=True)


def test_dbt_parse_succeeds_with_bad_arguments_in_models(project):
    result = run_dbt("parse", "--no-partial-parse", project_dir=project)
    assert result.success
    nodes = result.result.nodes
    assert {n.name for n in nodes.values() if n.package_name == "bad_arguments"} >= {*BAD_MODELS, "good_rows"}


def test_a_bad_argument_fails_its_own_model_and_the_others_build(project, spark):
    result = run_dbt("build", "--select", "readings", "good_rows", *BAD_MODELS, project_dir=project,
                     expect_success=False)
    statuses = {r.node.name: str(r.status) for r in result.result.results}
    assert statuses["readings"] == "success" and statuses["good_rows"] == "success"
    assert {name: statuses[name] for name in BAD_MODELS} == {name: "error" for name in BAD_MODELS}
    messages = {r.node.name: " ".join(str(r.message).split()) for r in result.result.results}
    assert "range_window_aggregate(): `ties` must be one of arrival, peers; got 'strict'." in messages["bad_range"]
    assert "rows_window_aggregate(): `rows`" in messages["bad_rows"]
    assert "count_window_aggregate(): `n`" in messages["bad_count"]
    assert "fenl_since(): `period` must be one of hourly, daily, monthly, yearly; got 'weekly'." in messages["bad_fenl"]
    assert "partial_aggregate(): `pane" in messages["bad_partial"]
    assert "merge_partial_aggregates(): `aggregates['s']` must be" in messages["bad_merge"]
    rows = [r.asDict() for r in spark.sql(f"select * from {SCHEMA}.good_rows order by seq").collect()]
    assert [r["temp_sum_2"] for r in rows] == [10, 7]
