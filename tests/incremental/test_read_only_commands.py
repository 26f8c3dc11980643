"""Commands that only read (parse, ls, compile, show, docs generate) create, fill and
alter nothing, whatever `--vars` say: with a late row present and `late_rows: audit`,
and a new entity for the Fenl windows, the schema's tables, the models' properties and
every file of the schema's folder are the same after them as before, and the next run still sees the late row and the
new entity as new."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import run_dbt
from tests.incremental.replay import SCHEMA, SEED

# The tests run commands on the whole project's build.
pytestmark = pytest.mark.usefixtures("project_build")

AUDIT = ["--vars", "{late_rows: audit}"]
MODELS = [
    "hourly_temperatures_city_stats_24h",  # RANGE: late rows audited by a run
    "hourly_temperatures_city_last_6_readings",  # ROWS
    "hourly_temperatures_city_count_window_24",  # count window (input watermark)
    "hourly_temperatures_city_pair_daily_partials",  # panes
    "hourly_temperatures_city_fenl_mild",  # Fenl sliding: a kept state
    "hourly_temperatures_city_fenl_days",  # Fenl cron: the entities it has seen
]


def catalog(spark) -> tuple:
    """What a command could write: the schema's tables, the table properties of the
    models and the tables they keep beside them (where a run records its watermark and
    state), and every file under the schema's folder (any table's rows), with its size
    and modification time."""
    tables = sorted(r["tableName"] for r in spark.sql(f"show tables in {SCHEMA}").collect() if not r["isTemporary"])
    properties = {name: {r["key"]: r["value"] for r in spark.sql(f"show tblproperties {SCHEMA}.{name}").collect()
                         if r["key"] != "transient_lastDdlTime"}
                  for name in tables if name.startswith(tuple(MODELS))}
    location = spark.sql(f"describe schema {SCHEMA}").where("info_name = 'Location'").first()["info_value"]
    folder = Path(urlparse(location).path)
    files = {str(f.relative_to(folder)): (f.stat().st_size, f.stat().st_mtime_ns)
             for f in folder.rglob("*") if f.is_file()}
    return tables, properties, files


def keep_only_original_readings(spark) -> None:
    # Spark cannot overwrite a table from a query that reads it: the rows go through a
    # checkpoint first.
    kept = spark.sql(f"select * from {SEED} where city <> 'Portland'").localCheckpoint()
    kept.write.insertInto(SEED, overwrite=True)


@pytest.fixture
def late_new_entity_row(spark):
    keep_only_original_readings(spark)
    total = spark.sql(f"select max(seq) as n from {SEED}").first()["n"]
    spark.sql(f"insert into {SEED} select {total + 1} as seq, max(reading_at) - interval 30 hours as reading_at, "
              f"'Portland' as city, 99.5 as temp_f from {SEED}")
    yield total + 1
    keep_only_original_readings(spark)
    spark.sql(f"drop table if exists {SCHEMA}.hourly_temperatures_city_stats_24h__late_rows")
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", "--full-refresh")


def test_read_only_commands_write_nothing(spark, late_new_entity_row):
    before = catalog(spark)
    tables, properties, files = before
    assert any(name.endswith("__fenl_entities") for name in tables) and len(files) > len(tables)
    assert not any(name.endswith("__late_rows") for name in tables)
    assert "stream_windows.watermark" in properties["hourly_temperatures_city_stats_24h"]
    run_dbt("parse", *AUDIT)
    run_dbt("ls", "--select", *MODELS, *AUDIT)
    run_dbt("compile", "--select", *MODELS, *AUDIT)
    for model in ("hourly_temperatures_city_stats_24h", "hourly_temperatures_city_fenl_mild",
                  "hourly_temperatures_city_fenl_days"):
        run_dbt("show", "--select", model, "--limit", "3", *AUDIT)
    run_dbt("docs", "generate", "--select", MODELS[0], MODELS[-1], *AUDIT)
    assert catalog(spark) == before


def test_after_a_compile_the_run_still_audits_the_late_row(spark, late_new_entity_row):
    model = f"{SCHEMA}.hourly_temperatures_city_stats_24h"
    run_dbt("compile", "--select", "hourly_temperatures_city_stats_24h", *AUDIT)
    # The default policy still fails the run: the compile audited nothing.
    failed = run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", expect_success=False)
    assert "late row(s)" in " ".join(str(r.message) for r in failed.result.results)
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", *AUDIT)
    audited = spark.sql(f"select seq from {model}__late_rows").collect()
    assert [r["seq"] for r in audited] == [late_new_entity_row]
