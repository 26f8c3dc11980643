"""Lint: sqlfluff on the models (dbt templater, in this process so it shares the
suite's Spark and built catalog), on the macro and generic-test files (jinja
templater, see macros/.sqlfluff), and ruff on the Python."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import PROJECT_DIR


def _violations(paths: list[str], cwd: Path) -> list[str]:
    from sqlfluff.core import FluffConfig, Linter

    previous = os.getcwd()
    os.chdir(cwd)  # sqlfluff reads .sqlfluff from the working directory
    try:
        config = FluffConfig.from_root()
        result = Linter(config=config).lint_paths(tuple(paths))
    finally:
        os.chdir(previous)
    return [
        f"{record['filepath']}:{v['start_line_no']} {v['code']} {v['description']}"
        for record in result.as_records()
        for v in record["violations"]
    ]


@contextlib.contextmanager
def reads_answered_once():
    """The dbt templater renders each model twice (dbt's compile, then sqlfluff's trace
    of the template), and the macros plan at compile with queries (describe, show
    tblproperties, the incremental plan's selects): every query ran twice, and the
    inputs' describes once per model that reads them. While the lint runs nothing
    writes, so a read's answer is kept and given again (the lint of the models took
    124 s with every query run, 88 s with this, in a process of its own, 2026-11-27)."""
    from dbt.adapters.base.impl import BaseAdapter

    run = BaseAdapter.execute
    answers = {}

    @functools.wraps(run)  # keeps the marks that make it `adapter.execute` in Jinja
    def execute(self, sql, auto_begin=False, fetch=False, limit=None):
        if sql.lstrip().split(None, 1)[0].lower() not in ("select", "describe", "show"):
            return run(self, sql, auto_begin, fetch, limit)
        if (sql, fetch, limit) not in answers:
            answers[sql, fetch, limit] = run(self, sql, auto_begin, fetch, limit)
        return answers[sql, fetch, limit]

    BaseAdapter.execute = execute
    try:
        yield answers
    finally:
        BaseAdapter.execute = run


def test_models_lint_clean(project_build):
    with reads_answered_once() as answers:
        assert _violations(["models"], PROJECT_DIR) == []
    assert answers, "the models' lint ran no query through the adapter: the dbt templater did not compile them"


def test_macros_and_generic_tests_lint_clean():
    assert _violations(["."], PROJECT_DIR / "macros") == []
    assert _violations(["."], PROJECT_DIR / "tests" / "dbt") == []


def test_python_lint_clean():
    ruff = Path(sys.executable).parent / "ruff"
    completed = subprocess.run([str(ruff), "check", "."], cwd=PROJECT_DIR, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
