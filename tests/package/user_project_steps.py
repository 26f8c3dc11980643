"""The README's "Use it in your own project" steps, done as a user does them: the user's
project (tests/package/user_project) copied to a folder, its packages.yml and
profiles.yml taken from the README's code blocks (only the path to this repository and
the profile's name filled in), `dbt deps` and the other dbt commands in a process of
their own (their own Spark, warehouse and metastore under the project's .spark/), and
its tables read back from their Parquet files. Shared by the user project's tests here
and on the cluster (tests/cluster)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd

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


def install_user_project(folder: Path) -> Path:
    """The user's project in `folder`, set up by the README's steps, its packages
    installed (`dbt deps`)."""
    project = folder / PROFILE
    shutil.copytree(USER_PROJECT, project)
    packages = readme_block("yaml", "packages:").replace("../stream_windows", str(PROJECT_DIR))
    (project / "packages.yml").write_text(packages)
    profile = readme_block("yaml", "type: spark_session")
    assert profile.startswith("my_project:")
    (project / "profiles.yml").write_text(PROFILE + profile[len("my_project"):])
    dbt(project, "deps")
    return project


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
