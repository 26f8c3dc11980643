"""A failed rebuild keeps the last good table (the adapter's table and incremental
materializations build aside and swap), and a killed run's leftovers do not block the
next one."""

from __future__ import annotations

import pytest

from tests.adapter.fixture_project_paths import FIXTURE, SCHEMA
from tests.conftest import SPARK_DIR, rows, run_dbt

BROKEN = ["--vars", "{break_models: true}"]
REBUILT = ["fixture_station_totals", "fixture_station_spans", "fixture_readings_by_id"]
SELECTION = ["--select", "fixture_readings", "fixture_readings_clean", *REBUILT]

TOTALS = [{"station": "north", "value_total": 30}, {"station": "south", "value_total": 21}]
SPANS = [
    {"station": "north", "readings": 2, "value_span": 10},
    {"station": "south", "readings": 3, "value_span": 4},
]
BY_ID = [{"reading_id": i, "value": v} for i, v in enumerate([10, 20, 5, 7, 9], start=1)]


def build(*args: str, expect_success: bool = True):
    return run_dbt("build", *SELECTION, *args, project_dir=FIXTURE, expect_success=expect_success)


def table_rows(spark, name: str, order: str) -> list[dict]:
    return rows(spark, f"select * from {SCHEMA}.{name} order by {order}")


def assert_last_good_tables(spark):
    assert table_rows(spark, "fixture_station_totals", "station") == TOTALS
    assert table_rows(spark, "fixture_station_spans", "station") == SPANS
    assert table_rows(spark, "fixture_readings_by_id", "reading_id") == BY_ID


def statuses(result) -> dict[str, str]:
    return {r.node.name: str(r.status) for r in result.result.results}


@pytest.fixture
def good_build(spark):
    build("--full-refresh")
    assert_last_good_tables(spark)


@pytest.mark.parametrize("mode", [[], ["--full-refresh"]], ids=["rebuild", "full refresh"])
def test_a_failed_rebuild_keeps_the_last_good_table(good_build, spark, mode):
    result = build(*mode, *BROKEN, expect_success=False)
    failed = statuses(result)
    assert failed["fixture_station_totals"] == "error"
    assert failed["fixture_station_spans"] == "error"
    if mode:  # a plain run of the incremental model only appends, and finds no new row
        assert failed["fixture_readings_by_id"] == "error"
    messages = " ".join(str(r.message) for r in result.result.results)
    assert "fixture_station_totals: broken input" in messages
    assert "fixture_station_spans: broken input" in messages
    assert_last_good_tables(spark)
    build()  # and the next good run replaces them as usual
    assert_last_good_tables(spark)


def warehouse_folder(name: str):
    return SPARK_DIR / "warehouse" / f"{SCHEMA}.db" / name


def test_a_killed_writes_leftover_folder_does_not_block_the_next_build(good_build, spark):
    # What a SIGKILL during CREATE TABLE AS / saveAsTable leaves: a folder no table owns.
    leftovers = [
        warehouse_folder("fixture_station_totals__dbt_new") / "_temporary" / "0",
        warehouse_folder("fixture_station_spans__dbt_new") / "_temporary" / "0",
        warehouse_folder("fixture_readings_by_id__dbt_new") / "_temporary" / "0",
    ]
    for folder in leftovers:
        folder.mkdir(parents=True)
        (folder / "part-00000.parquet").write_bytes(b"half written")
    build("--full-refresh")
    assert_last_good_tables(spark)
    assert not any(folder.exists() for folder in leftovers)


def test_a_run_killed_between_the_swaps_renames_gets_its_table_back(good_build, spark):
    # Killed after `rename <name> to <name>__dbt_backup`, before the new table's rename.
    spark.sql(f"alter table {SCHEMA}.fixture_station_totals rename to {SCHEMA}.fixture_station_totals__dbt_backup")
    result = run_dbt("run", "--select", "fixture_station_totals", *BROKEN, project_dir=FIXTURE, expect_success=False)
    assert statuses(result) == {"fixture_station_totals": "error"}
    assert table_rows(spark, "fixture_station_totals", "station") == TOTALS
    assert not spark.catalog.tableExists(f"{SCHEMA}.fixture_station_totals__dbt_backup")


def test_a_rebuild_swaps_in_new_rows_and_leaves_no_side_table(good_build, spark):
    spark.sql(f"insert into {SCHEMA}.fixture_readings values (6, 'north', 1, null)")
    try:
        run_dbt("run", "--select", *REBUILT, "--full-refresh", project_dir=FIXTURE)
        assert table_rows(spark, "fixture_station_totals", "station")[0] == {"station": "north", "value_total": 31}
        assert table_rows(spark, "fixture_readings_by_id", "reading_id")[-1] == {"reading_id": 6, "value": 1}
        names = {t.name for t in spark.catalog.listTables(SCHEMA)}
        assert not {n for n in names if n.endswith(("__dbt_new", "__dbt_backup"))}
        described = rows(spark, f"describe table extended {SCHEMA}.fixture_station_totals")
        location = {r["col_name"]: r["data_type"] for r in described}["Location"]
        assert location.endswith(f"{SCHEMA}.db/fixture_station_totals")
    finally:
        build("--full-refresh")
