"""A window macro's bad argument fails the model that has it, when that model compiles
to run, and nothing else: `dbt parse` succeeds, and a build of other models goes on. A
bad value, an argument name the macro does not take (with the nearest valid one), too
many arguments, and an adapter other than Spark's (the package's `default__`) all fail
this way. A project's `dispatch:` config puts its own implementation first."""

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
dispatch:
  - macro_namespace: stream_windows
    search_order: ["bad_arguments", "stream_windows"]
"""

# The project's own rows_window_aggregate, found before the package's through `dispatch:`:
# the package's SQL, with a column that says whose implementation ran.
OVERRIDE = """
{% macro spark__rows_window_aggregate(relation, rows, aggregates, arrival_order, partition_by, columns,
                                      integer_avg, incremental) %}
  {%- set package_sql = stream_windows.spark__rows_window_aggregate(relation, rows, aggregates, arrival_order,
                                                                    partition_by, columns, integer_avg, incremental) -%}
  {{ return("select *, 'bad_arguments' as implemented_by from (" ~ package_sql ~ ") as _package") }}
{% endmacro %}
"""

READINGS = "seq,city,reading_at,temp\n1,Denver,2024-01-01 10:00:00,10\n2,Oslo,2024-01-01 11:00:00,-3\n"
# Arrival position 1 twice (once per city): the generic test arrival_unique fails on the
# whole input and passes within each city.
REPEATED = ("seq,city,reading_at,temp\n1,Denver,2024-01-01 10:00:00,10\n1,Oslo,2024-01-01 10:00:00,-3\n"
            "2,Oslo,2024-01-01 11:00:00,1\n")
REPEATED_YML = """  - name: repeated_readings
    columns:
      - name: seq
        data_tests:
          - stream_windows.arrival_unique
          - stream_windows.arrival_unique:
              arguments: {partition_by: city}
"""

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
    # Argument names the macros do not take: a near miss is named, a far one gets the list.
    "misspelled_range": "{{ stream_windows.range_window_aggregate(relation=ref('readings'), time_column='reading_at', "
                        "range=\"INTERVAL '1' HOUR\", partiton_by=['city'], arrival_order='seq', "
                        "aggregates={'m': 'max(temp)'}) }}",
    "misspelled_since": "{{ stream_windows.fenl_aggregate(relation=ref('readings'), entity='city', "
                        "time_column='reading_at', arrival_order='seq', "
                        "window=stream_windows.fenl_since(perid='daily'), "
                        "aggregates={'s': 'sum(temp)'}) }}",
    "unknown_count": "{{ stream_windows.count_window_aggregate(relation=ref('readings'), time_column='reading_at', "
                     "n=2, "
                     "arrival_order='seq', aggregates={'s': 'sum(temp)'}, colour='red') }}",
    "too_many_rows": "{{ stream_windows.rows_window_aggregate(ref('readings'), 1, {'s': 'sum(temp)'}, 'seq', "
                     "none, none, "
                     "false, none, 'one too many') }}",
    # The package's default__, which dispatch reaches on an adapter that is not Spark's.
    "other_adapter": "{{ stream_windows.default__merge_partial_aggregates(ref('readings'), ['city'], "
                     "{'s': 'sum(temp)'}, none) }}",
}
# An incremental model and its copy, each with a dbt unit test: the full build, over a
# fixture, passes; run as incremental (an override) it fails, naming why: its plan reads
# the input's table, which a unit test's fixture is not.
INCREMENTAL_MODEL = ("{{ config(materialized='incremental', incremental_strategy='insert_overwrite', "
                     "partition_by=['time_partition']) }}\n"
                     "{{ stream_windows.rows_window_aggregate(relation=ref('readings'), rows=1, arrival_order='seq', "
                     "aggregates={'s': 'sum(temp)'}, incremental={'time_column': 'reading_at', 'partition': 'day'}) }}")
UNIT_TESTS = """
unit_tests:
  - name: incremental_rows_full_build
    model: incremental_rows
    given:
      - input: ref('readings')
        rows:
          - {seq: 1, city: Denver, reading_at: "2024-01-01 10:00:00", temp: 10}
          - {seq: 2, city: Oslo, reading_at: "2024-01-01 11:00:00", temp: -3}
    expect:
      rows: [{seq: 1, s: 10}, {seq: 2, s: 7}]
  - name: incremental_rows_as_incremental
    model: incremental_rows_overridden
    overrides:
      macros: {is_incremental: true}
    given:
      - input: ref('readings')
        rows: [{seq: 1, city: Denver, reading_at: "2024-01-01 10:00:00", temp: 10}]
      - input: this
        rows: []
    expect:
      rows: []
"""
GOOD_MODEL = ("{{ stream_windows.rows_window_aggregate(relation=ref('readings'), rows=1, arrival_order='seq', "
              "aggregates={'temp_sum_2': 'sum(temp)'}) }}")


@pytest.fixture(scope="module")
def project(tmp_path_factory, spark) -> Path:
    root = tmp_path_factory.mktemp("bad_arguments")
    (root / "models").mkdir()
    (root / "seeds").mkdir()
    (root / "macros").mkdir()
    (root / "macros" / "rows_window_aggregate.sql").write_text(OVERRIDE)
    (root / "dbt_project.yml").write_text(PROJECT_YML)
    (root / "packages.yml").write_text(f"packages:\n  - local: {PROJECT_DIR}\n")
    (root / "seeds" / "readings.csv").write_text(READINGS)
    (root / "seeds" / "_seeds.yml").write_text(
        "version: 2\nseeds:\n  - name: readings\n    config:\n"
        "      column_types: {seq: int, city: string, reading_at: timestamp, temp: int}\n" + REPEATED_YML)
    (root / "seeds" / "repeated_readings.csv").write_text(REPEATED)
    (root / "models" / "_unit_tests.yml").write_text("version: 2\n" + UNIT_TESTS)
    for name, sql in {**BAD_MODELS, "good_rows": GOOD_MODEL, "incremental_rows": INCREMENTAL_MODEL,
                      "incremental_rows_overridden": INCREMENTAL_MODEL}.items():
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
    result = run_dbt("build", "--select", "readings", "repeated_readings", "good_rows", "incremental_rows",
                     "incremental_rows_overridden", *BAD_MODELS, project_dir=project, expect_success=False)
    statuses = {r.node.name: str(r.status) for r in result.result.results}
    assert statuses["readings"] == "success" and statuses["good_rows"] == "success"
    # arrival_unique: position 1 is held twice in the input, once in each city.
    unique_tests = {name: (statuses[name], r.failures) for r in result.result.results
                    for name in [r.node.name] if name.startswith("stream_windows_arrival_unique")}
    assert sorted(unique_tests.values()) == [("fail", 1), ("pass", 0)], unique_tests
    assert {name: statuses[name] for name in BAD_MODELS} == {name: "error" for name in BAD_MODELS}
    messages = {r.node.name: " ".join(str(r.message).split()) for r in result.result.results}
    assert "range_window_aggregate(): `ties` must be one of arrival, peers; got 'strict'." in messages["bad_range"]
    assert "rows_window_aggregate(): `rows`" in messages["bad_rows"]
    assert "count_window_aggregate(): `n`" in messages["bad_count"]
    assert "fenl_since(): `period` must be one of hourly, daily, monthly, yearly; got 'weekly'." in messages["bad_fenl"]
    assert "partial_aggregate(): `pane" in messages["bad_partial"]
    assert "merge_partial_aggregates(): `aggregates['s']` must be" in messages["bad_merge"]
    assert ("range_window_aggregate(): unknown argument `partiton_by`; did you mean `partition_by`?"
            in messages["misspelled_range"])
    assert "fenl_since(): unknown argument `perid`; did you mean `period`?" in messages["misspelled_since"]
    assert ("count_window_aggregate(): unknown argument `colour`; it takes relation, time_column, n, aggregates, "
            "group_by, arrival_order, tick, incremental.") in messages["unknown_count"]
    assert ("rows_window_aggregate(): takes at most 8 arguments (relation, rows, aggregates, arrival_order, "
            "partition_by, columns, integer_avg, incremental); got 9 positional ones.") in messages["too_many_rows"]
    assert ("merge_partial_aggregates(): the adapter `spark_session` is not supported: "
            "stream_windows writes Spark SQL, "
            "for the adapters spark and spark_session") in messages["other_adapter"]
    assert "`spark_session__merge_partial_aggregates`" in messages["other_adapter"]
    assert statuses["incremental_rows_full_build"] == "pass" and statuses["incremental_rows"] == "success"
    assert (statuses["incremental_rows_as_incremental"] == "error"
            and statuses["incremental_rows_overridden"] == "skipped")
    assert ("rows_window_aggregate() in unit test incremental_rows_as_incremental: "
            "is_incremental cannot be overridden to true: "
            "an incremental run plans from the input's table and the model's own"
            in messages["incremental_rows_as_incremental"])
    # good_rows built through the project's own implementation (dispatch), on the package's.
    rows = [r.asDict() for r in spark.sql(f"select * from {SCHEMA}.good_rows order by seq").collect()]
    assert [(r["temp_sum_2"], r["implemented_by"]) for r in rows] == [(10, "bad_arguments"), (7, "bad_arguments")]
