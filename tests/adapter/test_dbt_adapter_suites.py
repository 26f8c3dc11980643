"""dbt's shared adapter suites (dbt-tests-adapter) against the spark_session plugin,
in a pytest process of their own (adapter/tests/conformance: each class builds its own
dbt project; the process's one Spark, embedded or reached as a server, is not this
run's).

`make test` runs dbt's Python model suites on an embedded Spark; `make test-all` runs
every suite on an embedded Spark, a standalone cluster, a Spark Connect server and a
Spark Thrift Server, and holds docs/adapter.md's table of them to those runs."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

import pytest

from tests.conftest import PROJECT_DIR
from tests.deployment.conftest import running_server

sys.path.insert(0, str(PROJECT_DIR / "scripts"))
import standalone_cluster  # noqa: E402

SUITES = PROJECT_DIR / "adapter" / "tests" / "conformance"
GUIDE = PROJECT_DIR / "docs" / "adapter.md"
BEGIN = "<!-- suites:begin (tests/adapter/test_dbt_adapter_suites.py checks it against a run of every suite) -->"
END = "<!-- suites:end -->"
TARGETS = {"session": "embedded", "cluster": "cluster", "connect": "Connect", "thrift": "Thrift"}
# What a suite may be skipped for: what open-source Spark on parquet, or the way it is
# reached, lacks. A suite that fails is a failure, never a skip.
SKIP_REASONS = ("needs Delta, Iceberg or Hudi", "a Thrift server runs SQL statements only")

Results = dict[tuple[str, str], list[tuple[str, str]]]


def run_suites(tmp_path: Path, target: str = "session", server=None, *pytest_args: str) -> Results:
    """{(module, class): [(outcome, skip reason or '')]} from a run of the suites."""
    report = tmp_path / f"suites-{target}.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBT_", "STREAM_WINDOWS_", "SPARK_REMOTE"))}
    env["CONFORMANCE_TARGET"] = target
    if target == "cluster":
        env["CONFORMANCE_MASTER"] = server.master_url
    elif server is not None:
        env["CONFORMANCE_HOST"], env["CONFORMANCE_PORT"] = "127.0.0.1", str(server.port)
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", str(SUITES), "-p", "no:cacheprovider", "-q", "--durations=0",
         "-W", "ignore::DeprecationWarning", f"--basetemp={tmp_path / target}", f"--junitxml={report}",
         *pytest_args],
        cwd=PROJECT_DIR, env=env, capture_output=True, text=True, timeout=3600)
    assert report.exists(), completed.stdout[-6000:] + completed.stderr[-3000:]
    results: Results = defaultdict(list)
    for case in ET.parse(report).getroot().iter("testcase"):
        module, cls = case.get("classname").rsplit(".", 1)
        outcome, reason = "passed", ""
        for child in case:
            if child.tag in ("failure", "error"):
                outcome, reason = "failed", (child.get("message") or "")[:300]
            elif child.tag == "skipped":
                outcome, reason = "skipped", (child.get("message") or "").removeprefix("Skipped: ")
        results[module.rsplit(".", 1)[-1], cls].append((outcome, reason))
    failed = {key: r for key, r in results.items() if any(o == "failed" for o, _ in r)}
    assert not failed and completed.returncode == 0, f"{target}: {failed}\n{completed.stdout[-6000:]}"
    return dict(results)


def test_dbts_python_model_suites_pass(tmp_path):
    """dbt's three Python model suites, as dbt writes them (no file_format): a table
    model over refs, versions and a source; pandas, PySpark and pandas-on-Spark frames;
    an incremental model, each test of each passing."""
    results = run_suites(tmp_path, "session", None, "-m", "python_models")
    assert {cls: [o for o, _ in r] for (_, cls), r in results.items()} == {
        "TestPythonModel": ["passed"], "TestPySparkFrames": ["passed"], "TestPythonIncremental": ["passed"]}


def suites_table(runs: dict[str, Results]) -> str:
    """docs/adapter.md's table: a row per suite class, a column per way to reach Spark,
    the skip reasons as notes under it."""
    notes: list[str] = []
    header = " | ".join(TARGETS[t] for t in runs)
    lines = [f"| Module | Suite | Tests | {header} |", "| --- | --- | ---: |" + " --- |" * len(runs)]
    for module, cls in sorted(next(iter(runs.values()))):
        cells = []
        for results in runs.values():
            outcomes = results[module, cls]
            kinds = {o for o, _ in outcomes}
            assert len(kinds) == 1, (cls, outcomes)
            if kinds == {"passed"}:
                cells.append("passed")
            else:
                reason = outcomes[0][1]
                if reason not in notes:
                    notes.append(reason)
                cells.append(f"skipped ({notes.index(reason) + 1})")
        tests = len(next(iter(runs.values()))[module, cls])
        lines.append(f"| `{module.removeprefix('test_suite_')}` | {cls.removeprefix('Test')} | {tests} | "
                     f"{' | '.join(cells)} |")
    lines.append("")
    lines += [f"({n}) {reason}" + ("" if n == len(notes) else "  ") for n, reason in enumerate(notes, 1)]
    return "\n".join(lines)


@pytest.mark.proof
def test_every_dbt_adapter_suite_passes_or_names_what_parquet_lacks(tmp_path):
    """A `proof` test (make test-all): every suite of adapter/tests/conformance, on an
    embedded Spark, on a standalone cluster (two one-core workers), over a Spark Connect
    server and over a Spark Thrift Server. Each
    class passes or is skipped with a reason naming what open-source Spark on parquet, or
    the server, lacks, and docs/adapter.md's table is these runs'. In `make test`,
    test_dbts_python_model_suites_pass runs the Python model suites embedded."""
    runs = {"session": run_suites(tmp_path)}
    cluster = standalone_cluster.start(workers=2, cores=1, memory="2g", state_dir=tmp_path / "cluster")
    try:
        runs["cluster"] = run_suites(tmp_path, "cluster", cluster)
    finally:
        standalone_cluster.stop(cluster)
    for kind in ("connect", "thrift"):
        with running_server(kind, f"suites-{kind}") as server:
            runs[kind] = run_suites(tmp_path, kind, server)
    for target, results in runs.items():
        assert results.keys() == runs["session"].keys(), target
        for (_, cls), outcomes in results.items():
            for outcome, reason in outcomes:
                assert outcome == "passed" or any(r in reason for r in SKIP_REASONS), (target, cls, reason)
    guide = GUIDE.read_text()
    documented = guide[guide.index(BEGIN) + len(BEGIN):guide.index(END)].strip()
    table = suites_table(runs)
    assert documented == table, f"docs/adapter.md's table of suites should read:\n{table}"
