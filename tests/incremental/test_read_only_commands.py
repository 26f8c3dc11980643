"""Commands that only read (parse, ls, compile, show, docs generate) create, fill and
alter nothing, whatever `--vars` say. The input holds what would advance the models'
state in a run: a late row (under `late_rows: audit`), a new entity for the Fenl
windows, and a reading a day past the latest, which closes a Fenl cron period and moves
the kept sliding state. The schema's tables, the models' properties, the rows of the
tables the models keep beside them (Fenl states and entities, fingerprints) and every
file of the schema's folder are the same after them as before, and the next run still
sees the late row and the new entity as new."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from tests.conftest import run_dbt
from tests.incremental.replay import SCHEMA, SEED
from tests.window_kinds import incremental_sql_models

# The tests run commands on the whole project's build.
pytestmark = pytest.mark.usefixtures("project_build")

AUDIT = ["--vars", "{late_rows: audit}"]
# Each SQL window kind's own incremental model (tests/window_kinds.py): the RANGE one's
# late rows are audited by a run, the Fenl ones keep a state, the session one a plan that
# drops partitions in its pre-hook.
MODELS = incremental_sql_models()


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


def kept_state(spark, tables: list[str]) -> dict[str, list]:
    """The rows of the tables the models keep beside them: Fenl states and entities, and
    input fingerprints."""
    kept = [name for name in tables if name.endswith(("__fenl_state", "__fenl_entities", "__input_fingerprints"))]
    return {name: sorted(tuple(map(str, row)) for row in spark.table(f"{SCHEMA}.{name}").collect()) for name in kept}


ORIGINAL_ROWS = 17518  # the seed's rows (seq 1..17518)


def keep_only_original_readings(spark) -> None:
    # Spark cannot overwrite a table from a query that reads it: the rows go through a
    # checkpoint first.
    kept = spark.sql(f"select * from {SEED} where seq <= {ORIGINAL_ROWS}").localCheckpoint()
    kept.write.insertInto(SEED, overwrite=True)


@pytest.fixture
def late_new_entity_row(spark):
    """Two new readings: Portland's, 30 hours before the latest (a late row, and a new
    entity), then Seattle's, a day after the latest (a Fenl daily period closes, the
    sliding state moves). Yields the late row's seq."""
    keep_only_original_readings(spark)
    total = spark.sql(f"select max(seq) as n from {SEED}").first()["n"]
    assert total == ORIGINAL_ROWS
    spark.sql(f"insert into {SEED} select {total + 1} as seq, max(reading_at) - interval 30 hours as reading_at, "
              f"'Portland' as city, 99.5 as temp_f from {SEED}")
    spark.sql(f"insert into {SEED} select {total + 2} as seq, max(reading_at) + interval 26 hours as reading_at, "
              f"'Seattle' as city, 61.0 as temp_f from {SEED} where seq <= {total}")
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
    state = kept_state(spark, tables)
    assert {"hourly_temperatures_city_fenl_mild__fenl_state",
            "hourly_temperatures_city_fenl_days__fenl_entities"} <= {*state}
    assert all(state.values()), {name: len(rows) for name, rows in state.items()}
    run_dbt("parse", *AUDIT)
    run_dbt("ls", "--select", *MODELS, *AUDIT)
    run_dbt("compile", "--select", *MODELS, *AUDIT)
    for model in ("hourly_temperatures_city_stats_24h", "hourly_temperatures_city_fenl_mild",
                  "hourly_temperatures_city_fenl_days"):
        run_dbt("show", "--select", model, "--limit", "3", *AUDIT)
    run_dbt("docs", "generate", "--select", MODELS[0], MODELS[-1], *AUDIT)
    assert catalog(spark) == before
    assert kept_state(spark, tables) == state


def test_after_a_compile_the_run_still_audits_the_late_row(spark, late_new_entity_row):
    model = f"{SCHEMA}.hourly_temperatures_city_stats_24h"
    run_dbt("compile", "--select", "hourly_temperatures_city_stats_24h", *AUDIT)
    # The default policy still fails the run: the compile audited nothing.
    failed = run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", expect_success=False)
    assert "late row(s)" in " ".join(str(r.message) for r in failed.result.results)
    run_dbt("run", "--select", "hourly_temperatures_city_stats_24h", *AUDIT)
    audited = spark.sql(f"select seq from {model}__late_rows").collect()
    assert [r["seq"] for r in audited] == [late_new_entity_row]
