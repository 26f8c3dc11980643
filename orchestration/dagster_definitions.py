"""The project's dbt models as Dagster assets, with an hourly and a daily scheduled job.

Why: the window models are batch recomputations of stream-engine results, so in
production the DAG runs from a scheduler rather than from `make run`. The stream-engine
folders (sqlstream, streaminsight, odysseus, streambase) are tagged `hourly` in
dbt_project.yml and the Fenl folder `daily`; each job runs `dbt build` on its tag.
Models built incrementally (README, Incremental runs) recompute only the days new input
can change; the others still rebuild whole on each run.

A third job, `backfill_microbatch`, rebuilds a date range of the microbatch models
(dbt's --event-time-start / --event-time-end), given in its run config.

Run it with `dagster dev -f orchestration/dagster_definitions.py` (orchestration/README.md).
"""

import os
import sys
from pathlib import Path

import dagster as dg
from dagster_dbt import DbtCliResource, DbtProject, build_dbt_asset_selection, dbt_assets

PROJECT_DIR = Path(__file__).resolve().parents[1]
VENV_BIN = str(Path(sys.executable).parent)

# What `make run` exports (Makefile), for the dbt subprocesses started below; `dbt`
# must be the one next to this interpreter (dagster-dbt runs it from PATH).
if VENV_BIN not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = os.pathsep.join([VENV_BIN, os.environ.get("PATH", "")])
for name, value in {
    "STREAM_WINDOWS_SPARK_DIR": str(PROJECT_DIR / ".spark"),
    "SPARK_LOCAL_IP": "127.0.0.1",
    "PYSPARK_PYTHON": sys.executable,
    "PYSPARK_DRIVER_PYTHON": sys.executable,
    "DBT_SEND_ANONYMOUS_USAGE_STATS": "false",
}.items():
    os.environ.setdefault(name, value)

stream_windows_project = DbtProject(
    project_dir=PROJECT_DIR,
    profiles_dir=PROJECT_DIR,
    # dbt's own setting, so that `dbt parse` and this module agree on the manifest's place.
    target_path=os.environ.get("DBT_TARGET_PATH", "target"),
)
# Under `dagster dev`: re-parse on every load. Elsewhere: parse once if there is no manifest yet.
stream_windows_project.prepare_if_dev()
if not stream_windows_project.manifest_path.exists():
    stream_windows_project.preparer.prepare(stream_windows_project)


# Whether the two jobs' runs may overlap depends on who owns the catalog (docs/adapter.md,
# "Overlapping jobs"). A Spark Connect or Thrift server (DBT_TARGET=connect or thrift)
# owns its catalog and serves both jobs at once. An embedded Spark's Derby metastore
# admits one process: its dbt runs take turns in a Dagster pool whose limit is 1
# (orchestration/dagster.yaml), so the 02:05 hourly run waits for the 02:00 daily one
# instead of failing on the busy metastore.
SERVER_TARGETS = ("connect", "thrift")
EMBEDDED_CATALOG_POOL = "stream_windows_embedded_catalog"


def catalog_pool(target: str) -> str | None:
    """The Dagster pool the dbt runs on `target` take turns in, or None where they overlap."""
    return None if target in SERVER_TARGETS else EMBEDDED_CATALOG_POOL


class EventTimeRange(dg.Config):
    """A backfill of the microbatch models over [event_time_start, event_time_end), UTC
    (dbt's --event-time-start / --event-time-end: '2010-03-01', '2010-03-01 06:00:00').
    Left empty, a run builds dbt's own batches (the newest; begin to now on a first build)."""

    event_time_start: str = ""
    event_time_end: str = ""


def dbt_build_args(config: EventTimeRange) -> list[str]:
    """`dbt build`, with the backfill's range when the run's config gives one."""
    if bool(config.event_time_start) != bool(config.event_time_end):
        raise dg.Failure("A backfill needs both event_time_start and event_time_end "
                         f"(got {config.event_time_start!r} and {config.event_time_end!r}).")
    if not config.event_time_start:
        return ["build"]
    return ["build", "--event-time-start", config.event_time_start, "--event-time-end", config.event_time_end]


@dbt_assets(manifest=stream_windows_project.manifest_path, project=stream_windows_project,
            pool=catalog_pool(os.environ.get("DBT_TARGET", "local")))
def stream_windows_dbt_assets(context: dg.AssetExecutionContext, dbt: DbtCliResource, config: EventTimeRange):
    # A job's selection reaches dbt as --select of the selected models (and their tests).
    yield from dbt.cli(dbt_build_args(config), context=context).stream()


hourly_windows = dg.define_asset_job(
    "hourly_windows", selection=build_dbt_asset_selection([stream_windows_dbt_assets], dbt_select="tag:hourly")
)
daily_windows = dg.define_asset_job(
    "daily_windows", selection=build_dbt_asset_selection([stream_windows_dbt_assets], dbt_select="tag:daily")
)

# A date range of the microbatch models, rebuilt batch by batch (a late row's backfill,
# docs/incremental.md "dbt's microbatch"): launched by hand with the range in its config.
backfill_microbatch = dg.define_asset_job(
    "backfill_microbatch",
    selection=build_dbt_asset_selection([stream_windows_dbt_assets],
                                        dbt_select="config.incremental_strategy:microbatch"),
)

defs = dg.Definitions(
    assets=[stream_windows_dbt_assets],
    jobs=[hourly_windows, daily_windows, backfill_microbatch],
    schedules=[
        dg.ScheduleDefinition(job=hourly_windows, cron_schedule="5 * * * *", execution_timezone="UTC"),
        dg.ScheduleDefinition(job=daily_windows, cron_schedule="0 2 * * *", execution_timezone="UTC"),
    ],
    resources={"dbt": DbtCliResource(project_dir=stream_windows_project)},
)
