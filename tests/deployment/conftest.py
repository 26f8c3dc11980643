"""Spark as teams run it: a Spark Connect server and a Spark Thrift Server on free ports
of 127.0.0.1 (scripts/spark_servers.py, as `make connect-up` / `make thrift-up` start
them), each owning a catalog folder of its own, and dbt run against them as a user runs
it: its own process, `--target connect` or `--target thrift`.

The folder's tests compare the servers' tables with the embedded build of the run
(`project_build`, .spark/pytest): they run before tests/incremental, whose replays
rebuild some of those tables from partial inputs before restoring them."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR

sys.path.insert(0, str(PROJECT_DIR / "scripts"))
import spark_servers  # noqa: E402

SERVERS_DIR = PROJECT_DIR / ".spark" / "pytest-servers"
DBT = str(Path(sys.executable).parent / "dbt")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def running_server(kind: str, name: str, python: str | None = None, memory: str = "3g"):
    """A `kind` server over a new, empty catalog in SERVERS_DIR/name."""
    catalog = SERVERS_DIR / name
    shutil.rmtree(catalog, ignore_errors=True)
    os.environ["SPARK_DRIVER_MEMORY"], previous = memory, os.environ.get("SPARK_DRIVER_MEMORY")
    try:
        server = spark_servers.start(kind, catalog, port=_free_port(), python=python)
    finally:
        if previous is None:
            os.environ.pop("SPARK_DRIVER_MEMORY")
        else:
            os.environ["SPARK_DRIVER_MEMORY"] = previous
    server.catalog = catalog
    try:
        yield server
    finally:
        spark_servers.stop(server)


# Each server lives as long as its module's tests: an idle server's JVM still takes memory
# and CPU from the rest of the run.
@pytest.fixture(scope="module")
def connect_server():
    with running_server("connect", "connect") as server:
        yield server


@pytest.fixture(scope="module")
def thrift_server():
    with running_server("thrift", "thrift") as server:
        yield server


def dbt_command(server, *args: str, run: str = "run") -> list[str]:
    """The dbt command line of a user's process against `server`; its target folder
    is the server's catalog folder/<run>."""
    folder = server.catalog / run
    return [DBT, *args, "--target", server.kind, "--project-dir", str(PROJECT_DIR), "--profiles-dir",
            str(PROJECT_DIR), "--target-path", str(folder / "target"), "--log-path", str(folder / "logs")]


def dbt_env(server) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("SPARK_REMOTE", "SPARK_CONNECT_MODE_ENABLED")}
    if server.kind == "connect":
        env["SPARK_CONNECT_URL"] = server.url
    else:
        env["SPARK_THRIFT_PORT"] = str(server.port)
    return env


def dbt_on(server, *args: str, run: str = "run", expect_success: bool = True) -> subprocess.CompletedProcess:
    completed = subprocess.run(dbt_command(server, *args, run=run), env=dbt_env(server), capture_output=True,
                               text=True, timeout=1800)
    if expect_success:
        assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-3000:]
    return completed


def dbt_started(server, *args: str, run: str) -> subprocess.Popen:
    """A dbt process started against `server`, not waited for (jobs that overlap)."""
    return subprocess.Popen(dbt_command(server, *args, run=run), env=dbt_env(server), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
