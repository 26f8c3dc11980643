"""bench/report.py: raw benchmark figures saved with their context, and the README's
tables generated from the committed files only."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bench import report

FIGURE = {"benchmark": "tumbling 30/30", "baseline": "GROUP BY symbol, cell", "measured": "field dimension",
          "baseline_s": 4.6, "measured_s": 6.21, "ratio": 1.35, "goal": 1.0}


def test_a_run_is_saved_with_its_date_commit_machine_and_versions(tmp_path):
    path = report.save_run(["streambase"], [FIGURE], when=datetime(2026, 11, 25, 20, 5, tzinfo=UTC), folder=tmp_path)
    assert path.name.startswith("2026-11-25-2005-") and path.name.endswith("-streambase.json")
    record = json.loads(path.read_text())
    assert record["date"] == "2026-11-25 20:05 UTC"
    assert record["results"] == [FIGURE]
    assert record["machine"]["cpus"] >= 1 and record["versions"]["pyspark"]
    assert len(record["commit"]) >= 7


def test_tables_come_from_the_files_and_say_whether_each_goal_is_met(tmp_path):
    report.save_run(["streambase"], [FIGURE, {**FIGURE, "benchmark": "hopping 70/10", "ratio": 0.71, "goal": 0.75}],
                    when=datetime(2026, 11, 25, 20, 5, tzinfo=UTC), folder=tmp_path)
    text = f"intro\n{report.BEGIN}\nstale table\n{report.END}\noutro\n"
    rendered = report.render_readme(text, report.load_runs(tmp_path))
    assert "stale table" not in rendered and rendered.startswith("intro\n") and rendered.endswith("outro\n")
    assert "| tumbling 30/30 | GROUP BY symbol, cell | 4.60 | 6.21 | 1.35 | 1.00 | no |" in rendered
    assert "| hopping 70/10 | GROUP BY symbol, cell | 4.60 | 6.21 | 0.71 | 0.75 | yes |" in rendered
    assert "### 2026-11-25 20:05 UTC" in rendered


def test_a_context_row_has_no_goal_and_is_marked_context(tmp_path):
    duckdb = {**FIGURE, "benchmark": "tumbling 30/30 in DuckDB", "baseline": "the engine on Spark, same run",
              "ratio": 0.2, "goal": None}
    report.save_run(["single-machine"], [duckdb], when=datetime(2026, 11, 27, 6, 0, tzinfo=UTC), folder=tmp_path)
    rendered = report.render_readme(f"{report.BEGIN}\n{report.END}\n", report.load_runs(tmp_path))
    assert "| tumbling 30/30 in DuckDB | the engine on Spark, same run | 4.60 | 6.21 | 0.20 |  | context |" in rendered


def test_a_run_rewrites_its_file_after_each_benchmark_and_records_a_failure(tmp_path):
    path = report.save_run(["streambase", "odysseus"], [FIGURE], when=datetime(2026, 11, 25, 20, 5, tzinfo=UTC),
                           folder=tmp_path)
    failure = {"benchmark": "odysseus", "failed": "OutOfOrderError: field went backwards"}
    assert report.save_run(["streambase", "odysseus"], [FIGURE, failure], folder=tmp_path, path=path) == path
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    assert json.loads(path.read_text())["results"] == [FIGURE, failure]
    rendered = report.render_readme(f"{report.BEGIN}\n{report.END}\n", report.load_runs(tmp_path))
    assert "| odysseus | failed: OutOfOrderError: field went backwards | | | | | |" in rendered


def test_the_bench_readme_tables_are_current_with_the_committed_results():
    text = report.README.read_text()
    assert report.render_readme(text, report.load_runs()) == text, "run `python -m bench.report`"
