"""stream_windows installed as a package into a user's own dbt project, by the README's
"Use it in your own project" steps.

The project (tests/package/user_project) is copied to a temporary folder; its
packages.yml and profiles.yml are the README's code blocks, with only the path to this
repository and the profile's name filled in. `dbt deps` and `dbt build` run as the user
runs them, in a process of their own (their own Spark, warehouse and metastore under
the project's .spark/). The models' tables are then read from their Parquet files and
compared with the expected seeds, worked out by hand from the semantics."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import PROJECT_DIR

USER_PROJECT = Path(__file__).parent / "user_project"
PROFILE = "weather_desk"
SCHEMA = "analytics"
DBT = Path(sys.executable).parent / "dbt"

# model -> (expected seed, key columns)
EXPECTED = {
    "readings_max_1h": ("expected_readings_max_1h", ["seq"]),
    "readings_sum_last_2": ("expected_readings_sum_last_2", ["seq"]),
    "readings_count_window_2": ("expected_readings_count_window_2", ["city", "point_at"]),
    "readings_fenl_last_2_warm": ("expected_readings_fenl_last_2_warm", ["seq"]),
    "readings_city_stats": ("expected_readings_city_stats", ["city"]),
    "readings_field_1h": ("expected_readings_field_1h", ["city", "window_start"]),
}


def readme_section(title: str) -> str:
    text = (PROJECT_DIR / "README.md").read_text()
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def code_blocks(section: str) -> list[tuple[str, str]]:
    return re.findall(r"```(\w*)\n(.*?)```", section, flags=re.S)


def readme_block(language: str, containing: str) -> str:
    blocks = [body for lang, body in code_blocks(readme_section("Use it in your own project"))
              if lang == language and containing in body]
    assert len(blocks) == 1, f"the README's 'Use it in your own project' needs one {language} block with {containing!r}"
    return blocks[0]


def user_env(project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "STREAM_WINDOWS_"))}
    env.update(DBT_PROFILES_DIR=str(project), DBT_SEND_ANONYMOUS_USAGE_STATS="false", SPARK_LOCAL_IP="127.0.0.1")
    return env


def dbt(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(DBT), *args], cwd=project, env=env or user_env(project),
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, f"dbt {' '.join(args)} failed:\n{done.stdout[-6000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def user_project(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("user") / PROFILE
    shutil.copytree(USER_PROJECT, project)
    packages = readme_block("yaml", "packages:").replace("../stream_windows", str(PROJECT_DIR))
    (project / "packages.yml").write_text(packages)
    profile = readme_block("yaml", "type: spark_session")
    assert profile.startswith("my_project:")
    (project / "profiles.yml").write_text(PROFILE + profile[len("my_project"):])
    dbt(project, "deps")
    return project


@pytest.fixture(scope="module")
def user_build(user_project) -> dict:
    done = dbt(user_project, "build")
    assert "Completed successfully" in done.stdout
    return json.loads((user_project / "target" / "run_results.json").read_text())


def test_the_readme_pip_line_installs_this_repositorys_engine_and_adapter():
    line = readme_block("sh", "pip install").strip()
    assert line == 'pip install "../stream_windows[spark]" ../stream_windows/adapter'
    engine = tomllib.loads((PROJECT_DIR / "pyproject.toml").read_text())["project"]
    adapter = tomllib.loads((PROJECT_DIR / "adapter" / "pyproject.toml").read_text())["project"]
    assert "pyspark==4.3.0" in engine["optional-dependencies"]["spark"]
    assert any(d.startswith("dbt-spark[session]") for d in adapter["dependencies"])
    assert any(d.startswith("dbt-core>=1.11,<1.12") for d in adapter["dependencies"])
    # ... and they are what this environment runs the user's dbt with.
    assert metadata.version("streamwindows") == engine["version"]
    assert metadata.version("dbt-spark-session") == adapter["version"]


def test_only_the_users_nodes_build(user_build, user_project):
    ran = {r["unique_id"] for r in user_build["results"]}
    assert {u.split(".")[1] for u in ran} == {PROFILE}, sorted(u for u in ran if f".{PROFILE}." not in u)
    kinds = sorted(u.split(".")[0] for u in ran)
    assert kinds.count("seed") == 7 and kinds.count("model") == 7 and kinds.count("test") == 7
    assert all(r["status"] in ("success", "pass") for r in user_build["results"])
    manifest = json.loads((user_project / "target" / "manifest.json").read_text())
    package_nodes = [u for u in manifest["nodes"] if u.split(".")[1] == "stream_windows"]
    assert package_nodes == []
    assert "macro.stream_windows.range_window_aggregate" in manifest["macros"]


def read_table(project: Path, name: str) -> pd.DataFrame:
    folder = project / ".spark" / "warehouse" / f"{SCHEMA}.db" / name
    assert folder.is_dir(), f"no table folder {folder}"
    return pd.read_parquet(folder)


def read_expected(project: Path, seed: str) -> pd.DataFrame:
    frame = pd.read_csv(project / "seeds" / f"{seed}.csv")
    for column in frame.columns:
        if column.endswith(("_at", "_start", "_end")):
            frame[column] = pd.to_datetime(frame[column])
    return frame


@pytest.mark.parametrize("model", sorted(EXPECTED))
def test_each_macro_family_gives_the_hand_worked_rows(user_build, user_project, model):
    seed, key = EXPECTED[model]
    expected = read_expected(user_project, seed).sort_values(key).reset_index(drop=True)
    actual = read_table(user_project, model)[list(expected.columns)].sort_values(key).reset_index(drop=True)
    for column in expected.columns:
        if pd.api.types.is_datetime64_any_dtype(expected[column]):
            actual[column] = pd.to_datetime(actual[column]).dt.tz_localize(None).astype("datetime64[ns]")
            expected[column] = expected[column].astype("datetime64[ns]")
    pd.testing.assert_frame_equal(actual, expected, check_dtype=False, check_exact=False, rtol=1e-9)


def test_the_user_can_opt_in_to_the_package_examples(user_build, user_project):
    listed = dbt(user_project, "ls", "--no-partial-parse", "--resource-type", "model", "--output", "name",
                 env={**user_env(user_project), "STREAM_WINDOWS_EXAMPLES": "true"}).stdout
    assert "weather_minmax_24h" in listed.split()
    assert "readings_max_1h" in listed.split()
