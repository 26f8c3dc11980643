"""A user's own project, with stream_windows installed as a package, runs its Python
model on a standalone cluster whose workers do not have the engine: the README's
`cluster` profile target, the engine shipped to the executors by itself.

A `proof` test (make test-all): in `make test`, tests/package/test_user_project.py's
test_each_macro_family_gives_the_hand_worked_rows builds the same Python model from the
same README steps on the embedded Spark."""

from __future__ import annotations

import json

import pytest

from tests.cluster.conftest import executor_folders
from tests.package.user_project_steps import (
    EXPECTED,
    dbt,
    install_user_project,
    read_expected,
    read_table,
    user_env,
)

FIELD_MODEL = "readings_field_1h"


@pytest.fixture(scope="module")
def user_project(tmp_path_factory):
    return install_user_project(tmp_path_factory.mktemp("user"))


@pytest.mark.proof
@pytest.mark.cluster
def test_the_users_python_model_runs_on_the_cluster(user_project, cluster, lean_python):
    assert cluster.alive_workers() == 2
    profiles = (user_project / "profiles.yml").read_text()
    assert 'spark.master: "spark://host:7077"' in profiles  # the README's cluster target, filled in
    profiles = profiles.replace("spark://host:7077", cluster.master_url)
    profiles = profiles.replace('"<this machine\'s address>"', "127.0.0.1")
    (user_project / "profiles.yml").write_text(profiles)
    env = {**user_env(user_project), "PYSPARK_PYTHON": lean_python}
    seed = EXPECTED[FIELD_MODEL][0]
    before = executor_folders("worker-0") | executor_folders("worker-1")
    dbt(user_project, "build", "--target", "cluster", "--select", "readings", seed, FIELD_MODEL,
        "--target-path", "target-cluster", env=env)

    results = json.loads((user_project / "target-cluster" / "run_results.json").read_text())["results"]
    assert {r["unique_id"].split(".")[-1]: r["status"] for r in results if r["unique_id"].startswith("model.")} == {
        FIELD_MODEL: "success"}
    after = executor_folders("worker-0") | executor_folders("worker-1")
    assert after - before, "no worker ran an executor for this build"
    expected = read_expected(user_project, seed)
    actual = read_table(user_project, FIELD_MODEL)
    assert len(actual) == len(expected) == 4
    assert sorted(actual["temp_sum"].tolist()) == sorted(expected["temp_sum"].tolist())
    assert sorted(actual["emit_seq"].tolist()) == [0, 1, 2, 3]
