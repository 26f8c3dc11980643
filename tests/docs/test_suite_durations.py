"""scripts/suite_durations.py: the suite's time by area and tier, from a run's record to
docs/development.md's table (no Spark)."""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime

from tests.conftest import PROJECT_DIR

sys.path.insert(0, str(PROJECT_DIR / "scripts"))
import suite_durations  # noqa: E402

RAW = {"markers": "", "tests": [
    {"test": "tests/engine/test_a.py::test_one", "tier": "fast", "seconds": 1.26, "outcome": "passed"},
    {"test": "tests/engine/test_a.py::test_two", "tier": "fast", "seconds": 0.5, "outcome": "passed"},
    {"test": "tests/incremental/test_b.py::test_replay", "tier": "test", "seconds": 60.4, "outcome": "passed"},
    {"test": "tests/incremental/test_b.py::test_long_replay", "tier": "proof", "seconds": 150.0, "outcome": "failed"},
    {"test": "tests/test_lint.py::test_models_lint_clean", "tier": "test", "seconds": 70.0, "outcome": "passed"},
]}


def test_a_record_is_kept_with_its_date_and_tiers(tmp_path):
    raw = tmp_path / "durations-all.json"
    raw.write_text(json.dumps(RAW))
    path = suite_durations.save(raw, when=datetime(2026, 11, 28, 17, 5, tzinfo=UTC), folder=tmp_path / "suite")
    assert path.name.startswith("2026-11-28-1705-") and path.name.endswith("-fast-test-proof.json")
    kept = json.loads(path.read_text())
    assert kept["date"] == "2026-11-28 17:05 UTC" and kept["tests"] == RAW["tests"] and kept["machine"]["cpus"] >= 1


def test_the_table_sums_each_area_by_tier_heaviest_first():
    table = suite_durations.render({**RAW, "date": "2026-11-28 17:05 UTC", "commit": "abc1234",
                                    "machine": {"cpus": 2}})
    rows = [line for line in table.splitlines() if line.startswith("| `tests")]
    assert rows[:3] == ["| `tests/incremental/` |  | 60 s (1) | 150 s (1) |",
                        "| `tests/test_lint.py` |  | 70 s (1) |  |",
                        "| `tests/engine/` | 2 s (2) |  |  |"]
    assert "| **all** | **2 s** (2) | **130 s** (2) | **150 s** (1) |" in table
    assert "| `tests/incremental/test_b.py::test_long_replay` | proof | 150 |" in table
    assert "Failed in that run: `tests/incremental/test_b.py::test_long_replay`." in table


def test_only_the_text_between_the_markers_is_replaced():
    text = f"intro\n{suite_durations.BEGIN}\nstale\n{suite_durations.END}\noutro\n"
    record = {**RAW, "date": "d", "commit": "c", "machine": {"cpus": 2}}
    rendered = suite_durations.render_guide(text, record)
    assert rendered.startswith(f"intro\n{suite_durations.BEGIN}\n")
    assert rendered.endswith(f"{suite_durations.END}\noutro\n")
    assert "stale" not in rendered and "| **all** |" in rendered


def test_the_guides_table_is_current_with_the_newest_record():
    text = suite_durations.GUIDE.read_text()
    assert suite_durations.render_guide(text, suite_durations.newest()) == text, \
        "run `python scripts/suite_durations.py table`"
