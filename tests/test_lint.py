"""Lint: sqlfluff on the models (dbt templater, in this process so it shares the
suite's Spark and built catalog), on the macro and generic-test files (jinja
templater, see macros/.sqlfluff), and ruff on the Python."""

from __future__ import annotations

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


def test_models_lint_clean(project_build):
    assert _violations(["models"], PROJECT_DIR) == []


def test_macros_and_generic_tests_lint_clean():
    assert _violations(["."], PROJECT_DIR / "macros") == []
    assert _violations(["."], PROJECT_DIR / "tests" / "dbt") == []


def test_python_lint_clean():
    ruff = Path(sys.executable).parent / "ruff"
    completed = subprocess.run([str(ruff), "check", "."], cwd=PROJECT_DIR, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stdout + completed.stderr
