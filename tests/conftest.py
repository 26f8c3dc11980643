"""One embedded Spark for the whole pytest run.

dbt runs in-process (dbtRunner), so every dbt invocation and every direct Spark
query of the run share one SparkSession (one JVM start, ~8 s, instead of one per
test). The suite's catalog lives in <project>/.spark/pytest, apart from `make run`'s.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.dbt_in_process import DbtInProcess

PROJECT_DIR = Path(__file__).resolve().parents[1]
# Hypothesis examples of the many-example properties, one per engine family (the others
# run 6-12, halved in `make test`: spark_examples): marked `proof`, so `make test-all`
# runs them and `make test` leaves them out.
MANY_EXAMPLES = 40
SPARK_DIR = PROJECT_DIR / ".spark" / "pytest"

os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ["STREAM_WINDOWS_SPARK_DIR"] = str(SPARK_DIR)
os.environ["DBT_PROFILES_DIR"] = str(PROJECT_DIR)
os.environ.setdefault("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)


class DbtFailure(AssertionError):
    pass


# The suite's dbt commands, each project parsed once per set of files and options.
_DBT = DbtInProcess()


def run_dbt(*args: str, project_dir: Path = PROJECT_DIR, expect_success: bool = True, write_json: bool = False,
            failpoint: str | None = None):
    """Invoke dbt in this process; returns the dbtRunnerResult. The tests read results
    from it, not from target/*.json: dbt writes manifest.json (twice) and
    run_results.json only with write_json, which takes about 0.8 s an invocation off
    the run's few hundred (the compiled SQL and partial parsing are written either way).
    `failpoint`: the run fails at that point of the incremental protocol
    (STREAM_WINDOWS_FAILPOINT, set for this invocation only).

    Each project is parsed once per set of files and options (tests/dbt_in_process.py)."""
    if failpoint is not None:
        os.environ["STREAM_WINDOWS_FAILPOINT"] = failpoint
    try:
        result = _DBT.invoke([*args, "--write-json" if write_json else "--no-write-json"], project_dir=project_dir,
                             locations=["--profiles-dir", str(PROJECT_DIR)])
    finally:
        os.environ.pop("STREAM_WINDOWS_FAILPOINT", None)
    if expect_success and not result.success:
        failed = [f"{r.node.name}: {r.status} {r.message}" for r in getattr(result.result, "results", [])
                  if str(r.status) not in ("success", "pass")]
        raise DbtFailure(f"dbt {' '.join(args)} failed: {result.exception or failed}")
    return result


# The `fast` tier (make test-fast): the tests that need no Spark and no dbt command.
FAST = ("tests/engine/", "tests/bench/", "tests/docs/test_pictures.py", "tests/docs/test_suite_durations.py",
        "tests/package/test_release.py", "tests/package/test_macro_signatures.py")


# Whether this run leaves the `proof` tier out (`make test`): set before any test module
# is imported, so the example counts below are fixed when their decorators run.
_WITHOUT_PROOF = False


def pytest_configure(config):
    global _WITHOUT_PROOF
    _WITHOUT_PROOF = "not proof" in (config.getoption("markexpr") or "")


def spark_examples(n: int) -> int:
    """Hypothesis examples of a property that runs a Spark query per example (about
    0.4 s each): n in `make test-all`, half as many (at least 4) in `make test`, whose
    20-minute budget they shared at some 200 s. The same properties, the same
    strategies; the full run tries twice the streams."""
    return max(4, n // 2) if _WITHOUT_PROOF else n


# The tests that share nothing with the suite's Spark session and catalog: no Spark, or
# a Spark of their own in a subprocess (a user's project, dbt's adapter suites). `make
# test` runs them in a second pytest process beside the first (-m isolated), so their
# minutes, mostly spent waiting on subprocesses, overlap the rest of the suite's.
ISOLATED = (*FAST, "tests/package/test_user_project.py", "tests/orchestration/",
            "tests/adapter/test_dbt_adapter_suites.py")


def pytest_collection_modifyitems(items):
    for item in items:
        path = Path(item.path).relative_to(PROJECT_DIR).as_posix()
        if path.startswith(FAST):
            item.add_marker(pytest.mark.fast)
        if path.startswith(ISOLATED):
            item.add_marker(pytest.mark.isolated)


def pytest_addoption(parser):
    parser.addoption("--durations-json", metavar="PATH", default=None,
                     help="write every test's seconds (setup, call and teardown) and tier to PATH "
                          "(scripts/suite_durations.py turns it into docs/development.md's table)")


_SECONDS: dict[str, float] = {}
_OUTCOMES: dict[str, str] = {}


def pytest_runtest_logreport(report):
    _SECONDS[report.nodeid] = _SECONDS.get(report.nodeid, 0.0) + report.duration
    if _OUTCOMES.get(report.nodeid) != "failed" and (report.when == "call" or not report.passed):
        _OUTCOMES[report.nodeid] = report.outcome  # a failed phase stays failed


def pytest_sessionfinish(session):
    path = session.config.getoption("--durations-json", None)
    if not path or not _SECONDS:
        return
    tiers = {item.nodeid: ("fast" if item.get_closest_marker("fast") else
                           "proof" if item.get_closest_marker("proof") else "test") for item in session.items}
    tests = [{"test": nodeid, "tier": tiers.get(nodeid, "test"), "seconds": round(seconds, 2),
              "outcome": _OUTCOMES.get(nodeid, "passed")} for nodeid, seconds in _SECONDS.items()]
    Path(path).write_text(json.dumps({"markers": session.config.getoption("markexpr") or "",
                                      "tests": tests}, indent=1) + "\n")


def pytest_terminal_summary(terminalreporter):
    if _DBT.commands:
        terminalreporter.write_line(f"dbt in this process: {_DBT.commands} commands, {_DBT.parses} parses")


def compile_error(inline: str) -> str:
    """The whole message of a `dbt compile --inline` that must fail (dbt wraps the
    macro's CompilationError: the chain of causes is joined)."""
    result = run_dbt("compile", "--inline", inline, expect_success=False)
    assert not result.success, f"compiled without error: {inline}"
    messages = []
    error = result.exception
    while error is not None:
        messages.append(str(error))
        error = error.__cause__ or error.__context__
    if result.result is not None and hasattr(result.result, "results"):
        messages += [str(r.message) for r in result.result.results]
    return " ".join(" ".join(m.split()) for m in messages)


@contextmanager
def exact_shuffle_partitions(spark, partitions: int):
    """The session's shuffles at exactly ``partitions`` partitions for the block. The
    engine leaves the count of its shuffles to Spark, whose adaptive execution merges a
    small input's partitions into one or two: a test of what happens across partitions
    turns that merging off."""
    from streamwindows.spark.session import session_setting

    with (session_setting(spark, "spark.sql.shuffle.partitions", str(partitions)),
          session_setting(spark, "spark.sql.adaptive.coalescePartitions.enabled", "false")):
        yield


@pytest.fixture(scope="session")
def project_build():
    """The whole project built once: `dbt build --full-refresh` (seeds, models, data
    tests; incremental models rebuilt whole, whatever an earlier run left)."""
    SPARK_DIR.mkdir(parents=True, exist_ok=True)
    if os.environ.get("STREAM_WINDOWS_REUSE_BUILD") == "1" and (SPARK_DIR / "warehouse" / "stream_windows.db").is_dir():
        # A developer's shortcut (never set by make test or CI): reuse the catalog an
        # earlier pytest run built, to rerun a few tests without the 8-minute build.
        return run_dbt("show", "--inline", "select 1 as one")
    return run_dbt("build", "--full-refresh")


@pytest.fixture(scope="session")
def spark():
    """The run's SparkSession, started by dbt from the profile (so it has the profile's
    settings). A test module that reads the project's tables asks for the whole build
    too (`pytestmark = pytest.mark.usefixtures("project_build")`); the macros', the
    Spark layer's and the adapter's tests make their own inputs and run without it."""
    from pyspark.sql import SparkSession

    SPARK_DIR.mkdir(parents=True, exist_ok=True)
    if SparkSession.getActiveSession() is None:
        run_dbt("show", "--inline", "select 1 as one")
    return SparkSession.getActiveSession() or SparkSession.builder.getOrCreate()


LEAN_PACKAGES = ["pyspark", "pandas", "pyarrow", "numpy"]


@pytest.fixture(scope="session")
def lean_python() -> str:
    """A virtualenv with only the worker essentials (pinned like the project's): the
    Python workers of a cluster's executors or of a Spark server, which must receive the
    engine from the Python models that use it."""
    venv = PROJECT_DIR / ".spark" / "pytest-lean-venv"
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
def docs_target(project_build, tmp_path_factory) -> Path:
    """`dbt docs generate` on the built project, once per run (the e2e checks of the
    manifest and catalog and the browser test read the same files): a copy of target/
    without the compiled SQL, so a later dbt command that rewrites target/ cannot
    change what a test reads."""
    run_dbt("docs", "generate", write_json=True)
    copy = tmp_path_factory.mktemp("docs") / "target"
    shutil.copytree(PROJECT_DIR / "target", copy, ignore=shutil.ignore_patterns("compiled", "run", "*.msgpack"))
    return copy


@functools.cache
def compiled(inline: str) -> str:
    """The SQL of `dbt compile --inline`, compiled once per text in the run (the macro
    tests run one compiled configuration on many generated inputs)."""
    return run_dbt("compile", "--inline", inline).result.results[0].node.compiled_code


def rows(spark, sql: str) -> list[dict]:
    return [row.asDict() for row in spark.sql(sql).collect()]
