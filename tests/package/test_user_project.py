"""stream_windows installed as a package into a user's own dbt project, by the README's
"Use it in your own project" steps.

The steps are tests/package/user_project_steps.py's: the README's code blocks, `dbt deps`
and `dbt build` in a process of their own. The models' tables are then read from their
Parquet files and compared with the expected seeds, worked out by hand from the
semantics."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import PROJECT_DIR
from tests.package.user_project_steps import (
    DBT,
    EXPECTED,
    PROFILE,
    dbt,
    install_user_project,
    read_expected,
    read_table,
    readme_block,
    user_env,
)


@pytest.fixture(scope="module")
def user_project(tmp_path_factory) -> Path:
    return install_user_project(tmp_path_factory.mktemp("user"))


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
    # 8 seeds: `trades`, named like a package example seed, among them.
    assert kinds.count("seed") == 8 and kinds.count("model") == 7 and kinds.count("test") == 8
    assert "seed.weather_desk.trades" in ran
    # dbt unit tests on models that call a package macro (their input a fixture CTE).
    assert sorted(u.split(".")[-1] for u in ran if u.startswith("unit_test.")) == [
        "readings_fenl_last_2_warm_skips_cold_readings", "readings_max_1h_forgets_readings_over_an_hour_old"]
    assert all(r["status"] in ("success", "pass") for r in user_build["results"])
    manifest = json.loads((user_project / "target" / "manifest.json").read_text())
    package_nodes = [u for u in manifest["nodes"] if u.split(".")[1] == "stream_windows"]
    assert package_nodes == []
    # The package's example folders are not read here: no example is even disabled.
    assert [u for u in manifest["disabled"] if u.split(".")[0] in ("model", "seed")] == []
    assert "macro.stream_windows.range_window_aggregate" in manifest["macros"]


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


def test_the_user_can_opt_in_to_the_package_examples(user_build, user_project, tmp_path):
    """STREAM_WINDOWS_EXAMPLES=true reads the example folders too. The names must then
    differ (the README says so): the project without its own `trades` seed."""
    project = tmp_path / user_project.name
    shutil.copytree(user_project, project, symlinks=True, ignore=shutil.ignore_patterns("target", ".spark", "logs"))
    (project / "seeds" / "trades.csv").unlink()
    seeds_yml = (project / "seeds" / "_seeds.yml").read_text()
    start = seeds_yml.index("  # Named like one of the package's example seeds")
    end = seeds_yml.index("  - name: expected_readings_max_1h")
    (project / "seeds" / "_seeds.yml").write_text(seeds_yml[:start] + seeds_yml[end:])
    listed = dbt(project, "ls", "--no-partial-parse", "--resource-type", "model", "--output", "name",
                 env={**user_env(project), "STREAM_WINDOWS_EXAMPLES": "true"}).stdout
    assert "weather_minmax_24h" in listed.split()
    assert "readings_max_1h" in listed.split()


def test_dbt_show_previews_a_python_model_from_its_table(user_build, user_project):
    """dbt wraps a model's compiled code in a SQL limit; a Python model's is Python, so the
    adapter shows its built table's rows instead (spark_session__get_limit_sql)."""
    shown = dbt(user_project, "show", "--select", "readings_field_1h", "--limit", "2").stdout
    assert "Previewing node 'readings_field_1h'" in shown
    table = [line for line in shown.splitlines() if line.startswith("| ")]
    assert table[0].split("|")[1].strip() == "city" and len(table) == 4  # the header, its rule and two rows
    assert "Denver" in table[2] and "2024-01-01 10:00:00" in table[2]


def test_a_data_error_reaches_the_user_as_one_message_without_a_java_stack_trace(user_build, user_project):
    """With the README's profile (spark_dir), Spark logs errors only and not a failed
    task's stack trace: a NULL time shows as dbt's one message, naming the row."""
    model = user_project / "models" / "readings_with_a_null_time.sql"
    model.write_text(
        "{{ stream_windows.range_window_aggregate(relation='(select seq, city, case when seq = 3 then null "
        "else reading_at end as reading_at, temp from ' ~ ref('readings') ~ ')', time_column='reading_at', "
        "range=\"INTERVAL '1' HOUR\", partition_by=['city'], arrival_order='seq', aggregates={'m': 'max(temp)'}) }}\n")
    try:
        done = subprocess.run([str(DBT), "run", "--select", model.stem], cwd=user_project, env=user_env(user_project),
                              capture_output=True, text=True, timeout=900)
    finally:
        model.unlink()
    assert done.returncode == 1
    assert ("range_window_aggregate() in model readings_with_a_null_time: `time_column` reading_at is NULL at "
            "city=Oslo, arrival position 3") in done.stdout
    console = done.stdout + done.stderr
    assert "\tat org.apache.spark" not in console and "Exception in task" not in console, console[-3000:]
    assert "[Stage " not in console  # no progress bars


def test_the_docs_site_shows_the_package_pictures_and_keeps_the_users_landing_page(user_build, user_project):
    """dbt copies only the root project's asset-paths: the package's macro pages carry
    their pictures inline (data URIs), and the package's overview is its own page
    (__stream_windows__), not the user's landing page. (In the browser: the proof tier's
    test_the_user_projects_docs_site_in_the_browser.)"""
    dbt(user_project, "docs", "generate", "--no-compile", "--empty-catalog")
    manifest = json.loads((user_project / "target" / "manifest.json").read_text())
    macro = manifest["macros"]["macro.stream_windows.range_window_aggregate"]
    assert macro["description"].count("](data:image/svg+xml;base64,") == 2
    assert "docs/pictures/" not in macro["description"]
    overviews = {d["unique_id"] for d in manifest["docs"].values()
                 if d["name"] in ("__overview__", "__stream_windows__")}
    assert overviews == {"doc.dbt.__overview__", "doc.stream_windows.__stream_windows__"}


@pytest.mark.proof
def test_the_user_projects_docs_site_in_the_browser(user_build, user_project, tmp_path, capsys):
    """The user's docs site in Chromium: the package's macro page shows its pictures, the
    landing page is dbt's (the user's own, had they one), and no table shows a made-up
    row count. `make test` guards the same on the manifest:
    test_the_docs_site_shows_the_package_pictures_and_keeps_the_users_landing_page."""
    from tests.docs.test_docs_site import chromium, inline_picture, open_page, pictures_on_page, screenshot, serve

    dbt(user_project, "docs", "generate")
    catalog = json.loads((user_project / "target" / "catalog.json").read_text())
    assert "model.weather_desk.readings_max_1h" in catalog["nodes"]
    assert all("rows" not in node["stats"] for node in catalog["nodes"].values()), catalog["nodes"]
    with serve(user_project / "target") as base, chromium(tmp_path / "chromium") as driver:
        open_page(driver, base, "macro/macro.stream_windows.range_window_aggregate")
        images = pictures_on_page(driver)
        shot = screenshot(driver, tmp_path, "user_project_macro_page_range_window_aggregate", ".model-markdown img")
        with capsys.disabled():
            print(f"\nscreenshot (a user project's macro page): {shot}")
        assert [img["src"] for img in images] == [inline_picture("sqlstream_range_ties"),
                                                  inline_picture("sqlstream_range_following")]
        assert all(img["width"] > 0 and img["shown"] > 0 for img in images), images
        open_page(driver, base, "overview")
        landing = driver.execute_script("return document.body.innerText")
        assert "Welcome!" in landing and "stream-engine window semantics" not in landing
