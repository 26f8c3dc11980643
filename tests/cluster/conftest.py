"""A standalone Spark cluster on 127.0.0.1 (a master and two one-core workers), shared
by the run's cluster tests, whose executors run a lean interpreter without the project."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import PROJECT_DIR

sys.path.insert(0, str(PROJECT_DIR / "scripts"))
import standalone_cluster  # noqa: E402

CLUSTER_DIR = PROJECT_DIR / ".spark" / "pytest-cluster"


LEAN_PACKAGES = ["pyspark", "pandas", "pyarrow", "numpy"]


@pytest.fixture(scope="session")
def lean_python() -> str:
    """A virtualenv with only the worker essentials (pinned like the project's)."""
    venv = CLUSTER_DIR / "lean-venv"
    python = venv / "bin" / "python"
    stamp = venv / ".installed"
    if not stamp.exists():
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "-c", str(PROJECT_DIR / "constraints.txt"),
                        *LEAN_PACKAGES], check=True, timeout=900)
        stamp.touch()
    probe = subprocess.run([str(python), "-c", "import streamwindows"], capture_output=True)
    assert probe.returncode != 0, "the lean worker interpreter must not have the project"
    return str(python)


@pytest.fixture(scope="session")
def cluster(lean_python):
    started = standalone_cluster.start(workers=2, cores=1, memory="3g", worker_python=lean_python,
                                       state_dir=CLUSTER_DIR / "processes")
    yield started
    standalone_cluster.stop(started)


