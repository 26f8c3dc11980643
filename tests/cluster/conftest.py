"""A standalone Spark cluster on 127.0.0.1 (a master and two one-core workers), shared
by the run's cluster tests, whose executors run a lean interpreter without the project
(tests/conftest.py's lean_python)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import PROJECT_DIR

sys.path.insert(0, str(PROJECT_DIR / "scripts"))
import standalone_cluster  # noqa: E402

CLUSTER_DIR = PROJECT_DIR / ".spark" / "pytest-cluster"


@pytest.fixture(scope="session")
def cluster(lean_python):
    started = standalone_cluster.start(workers=2, cores=1, memory="3g", worker_python=lean_python,
                                       state_dir=CLUSTER_DIR / "processes")
    yield started
    standalone_cluster.stop(started)




def executor_folders(worker: str) -> set[str]:
    """The application folders (app-<id>) under which `worker` launched executors: one per
    application it served. A test compares them before and after its build, so that
    an earlier test's application does not count."""
    return {p.name for p in (CLUSTER_DIR / "processes" / worker).glob("app-*")}
