"""orchestration/dagster_definitions.py: dbt assets, the two tag-selected jobs and their schedules.

Loads the Definitions object from the file as `dagster dev -f` does, with a fresh
target path so the module parses the project itself (`dbt parse`, no Spark); none of
the suite's Spark fixtures are used.
"""

import importlib.util
import os
from pathlib import Path

import pytest
import yaml

from tests.window_kinds import folder_models

PROJECT_DIR = Path(__file__).resolve().parents[2]
DEFINITIONS_FILE = PROJECT_DIR / "orchestration" / "dagster_definitions.py"
# The folders dbt_project.yml tags `hourly` (the one place a folder's schedule is kept).
FOLDER_CONFIG = yaml.safe_load((PROJECT_DIR / "dbt_project.yml").read_text())["models"]["stream_windows"]
HOURLY_FOLDERS = tuple(folder for folder, config in FOLDER_CONFIG.items()
                       if isinstance(config, dict) and "hourly" in config.get("+tags", []))


def models_in(*folders: str) -> set[str]:
    """Model names under models/<folder> and python_models/<folder>."""
    return {
        path.stem
        for root in ("models", "python_models")
        for folder in folders
        for path in (PROJECT_DIR / root / folder).glob("*")
        if path.suffix in (".sql", ".py")
    }


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """(the module, its target path): imported with an empty DBT_TARGET_PATH, outside `dagster dev`."""
    target_path = tmp_path_factory.mktemp("dbt_target")
    saved_environ = dict(os.environ)
    os.environ["DBT_TARGET_PATH"] = str(target_path)
    os.environ.pop("DAGSTER_IS_DEV_CLI", None)
    try:
        spec = importlib.util.spec_from_file_location("stream_windows_dagster_definitions", DEFINITIONS_FILE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        # The module sets defaults for its dbt subprocesses (PATH, Spark variables).
        os.environ.clear()
        os.environ.update(saved_environ)
    return module, target_path


@pytest.fixture(scope="module")
def defs(loaded):
    return loaded[0].defs


def selected_models(defs, job_name: str) -> set[str]:
    """The model names a job's asset selection resolves to in the definitions' asset graph."""
    (job,) = [job for job in defs.jobs if job.name == job_name]
    return {key.path[-1] for key in job.selection.resolve(defs.resolve_asset_graph())}


def test_manifest_is_parsed_into_the_target_path_when_missing(loaded):
    module, target_path = loaded
    assert module.stream_windows_project.manifest_path == target_path / "manifest.json"
    assert (target_path / "manifest.json").is_file()


def test_definitions_are_loadable(defs):
    import dagster as dg

    dg.Definitions.validate_loadable(defs)


def test_dbt_resource_points_at_the_project(defs):
    dbt = defs.resources["dbt"]
    assert Path(dbt.project_dir) == PROJECT_DIR
    assert Path(dbt.profiles_dir) == PROJECT_DIR


@pytest.mark.parametrize(
    "model",
    # A model of each folder (tests/window_kinds.py), and a staging model.
    [pytest.param(model, id=f"{folder} model") for folder, model in folder_models().items()]
    + [pytest.param("stg_vega__hourly_temperatures", id="staging model")],
)
def test_asset_keys_include_model(defs, model):
    assert model in {key.path[-1] for key in defs.resolve_all_asset_keys()}


@pytest.mark.parametrize(
    ("job_name", "included", "excluded"),
    [
        pytest.param(
            "hourly_windows",
            {"hourly_temperatures_city_stats_24h", "trade_volume_30s", "validity_events_count"},
            {"purchase_amount_sum_cumulative", "stock_price_yearly"},
            id="hourly",
        ),
        pytest.param(
            "daily_windows",
            {"purchase_amount_sum_cumulative", "stock_price_yearly"},
            {"hourly_temperatures_city_stats_24h", "trade_volume_30s", "validity_events_count"},
            id="daily",
        ),
    ],
)
def test_job_selects_its_models(defs, job_name, included, excluded):
    selected = selected_models(defs, job_name)
    assert included <= selected
    assert not selected & excluded


def test_hourly_job_selects_exactly_the_stream_engine_folders(defs):
    assert models_in(*HOURLY_FOLDERS) >= {"trade_volume_30s", "hourly_temperatures_city_stats_24h"}
    assert selected_models(defs, "hourly_windows") == models_in(*HOURLY_FOLDERS)


def test_daily_job_selects_exactly_the_fenl_folder(defs):
    assert "purchase_amount_sum_cumulative" in models_in("fenl")
    assert selected_models(defs, "daily_windows") == models_in("fenl")


@pytest.mark.parametrize(
    ("schedule_name", "cron", "job_name"),
    [
        pytest.param("hourly_windows_schedule", "5 * * * *", "hourly_windows", id="hourly at minute 5"),
        pytest.param("daily_windows_schedule", "0 2 * * *", "daily_windows", id="daily at 02:00 UTC"),
    ],
)
def test_schedule(defs, schedule_name, cron, job_name):
    schedule = defs.resolve_schedule_def(schedule_name)
    assert (schedule.cron_schedule, schedule.job_name, schedule.execution_timezone) == (cron, job_name, "UTC")


def test_only_the_two_schedules(defs):
    assert sorted(schedule.name for schedule in defs.schedules) == ["daily_windows_schedule", "hourly_windows_schedule"]


def test_runs_on_an_embedded_catalog_take_turns_and_on_a_server_overlap(loaded):
    """The embedded Derby metastore admits one process: the dbt op claims a slot of a
    pool that orchestration/dagster.yaml limits to 1. A server target's runs overlap."""
    import yaml

    module, _ = loaded
    assert module.stream_windows_dbt_assets.op.pool == module.EMBEDDED_CATALOG_POOL  # DBT_TARGET unset: local
    assert [module.catalog_pool(t) for t in ("local", "cluster", "connect", "thrift")] == [
        module.EMBEDDED_CATALOG_POOL, module.EMBEDDED_CATALOG_POOL, None, None]
    instance = yaml.safe_load((PROJECT_DIR / "orchestration" / "dagster.yaml").read_text())
    assert instance["concurrency"]["pools"]["default_limit"] == 1


def microbatch_models() -> set[str]:
    """The SQL models configured incremental_strategy='microbatch'."""
    return {path.stem for path in (PROJECT_DIR / "models").rglob("*.sql")
            if "incremental_strategy='microbatch'" in path.read_text()}


def test_backfill_job_selects_exactly_the_microbatch_models(defs):
    assert {"hourly_temperatures_city_stats_24h_batched", "hourly_temperatures_city_count_window_24_batched"} <= \
        microbatch_models()
    assert selected_models(defs, "backfill_microbatch") == microbatch_models()


def test_a_backfills_range_reaches_dbt_as_its_event_time_flags(loaded):
    import dagster as dg

    module = loaded[0]
    assert module.dbt_build_args(module.EventTimeRange()) == ["build"]
    assert module.dbt_build_args(module.EventTimeRange(event_time_start="2010-03-01", event_time_end="2010-04-01")) == [
        "build", "--event-time-start", "2010-03-01", "--event-time-end", "2010-04-01"]
    with pytest.raises(dg.Failure, match="needs both event_time_start and event_time_end"):
        module.dbt_build_args(module.EventTimeRange(event_time_start="2010-03-01"))
