"""bench/report.py: raw benchmark figures saved with their context, and the README's
tables generated from the committed files only."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from bench import report, rounds

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
    assert "| tumbling 30/30 | GROUP BY symbol, cell | 4.60 | 6.21 | 1.35 |  | 1.00 | no |  |" in rendered
    assert "| hopping 70/10 | GROUP BY symbol, cell | 4.60 | 6.21 | 0.71 |  | 0.75 | yes |  |" in rendered
    assert "### 2026-11-25 20:05 UTC" in rendered


def test_a_context_row_has_no_goal_and_is_marked_context(tmp_path):
    duckdb = {**FIGURE, "benchmark": "tumbling 30/30 in DuckDB", "baseline": "the engine on Spark, same run",
              "ratio": 0.2, "goal": None}
    report.save_run(["single-machine"], [duckdb], when=datetime(2026, 11, 27, 6, 0, tzinfo=UTC), folder=tmp_path)
    rendered = report.render_readme(f"{report.BEGIN}\n{report.END}\n", report.load_runs(tmp_path))
    row = "| tumbling 30/30 in DuckDB | the engine on Spark, same run | 4.60 | 6.21 | 0.20 |  |  | context |  |"
    assert row in rendered


def test_a_run_rewrites_its_file_after_each_benchmark_and_records_a_failure(tmp_path):
    path = report.save_run(["streambase", "odysseus"], [FIGURE], when=datetime(2026, 11, 25, 20, 5, tzinfo=UTC),
                           folder=tmp_path)
    failure = {"benchmark": "odysseus", "failed": "OutOfOrderError: field went backwards"}
    assert report.save_run(["streambase", "odysseus"], [FIGURE, failure], folder=tmp_path, path=path) == path
    assert [p.name for p in tmp_path.iterdir()] == [path.name]
    assert json.loads(path.read_text())["results"] == [FIGURE, failure]
    rendered = report.render_readme(f"{report.BEGIN}\n{report.END}\n", report.load_runs(tmp_path))
    assert "| odysseus | failed: OutOfOrderError: field went backwards | | | | | | | |" in rendered


def test_the_bench_readme_tables_are_current_with_the_committed_results():
    text = report.README.read_text()
    assert report.render_readme(text, report.load_runs()) == text, "run `python -m bench.report`"


def test_a_paired_row_is_judged_by_medians_and_shows_the_best_ratio_and_peak_memory(tmp_path):
    base = rounds.Side(runs=[5.0, 4.0, 6.0], jvm_mb=[4096, 4300, 4200], python_workers_mb=[0, 0, 0])
    engine = rounds.Side(runs=[6.0, 4.4, 9.0], jvm_mb=[4000, 4500, 4100], python_workers_mb=[512, 900, 700])
    row = rounds.paired("tumbling", "GROUP BY", base, "engine", engine, goal=1.0)
    assert (row["baseline_s"], row["measured_s"]) == (5.0, 6.0)  # the medians
    assert row["ratio"] == 1.2 and round(row["best_ratio"], 2) == 1.1
    assert row["rounds"]["measured"] == {"runs_s": [6.0, 4.4, 9.0], "median_s": 6.0, "best_s": 4.4,
                                         "peak_jvm_mb": 4500, "peak_python_workers_mb": 900}
    report.save_run(["streambase"], [row], when=datetime(2026, 11, 27, 8, 0, tzinfo=UTC), folder=tmp_path)
    rendered = report.render_readme(f"{report.BEGIN}\n{report.END}\n", report.load_runs(tmp_path))
    assert "| tumbling | GROUP BY | 5.00 | 6.00 | 1.20 | 1.10 | 1.00 | no | 4.2 + 0.0 / 4.4 + 0.9 |" in rendered


def test_alternating_rounds_alternate_and_time_all_but_the_first():
    calls = []
    base, engine = rounds.alternating(lambda: calls.append("b"), lambda: calls.append("m"), rounds=4)
    assert calls == ["b", "m"] * 4
    assert len(base.runs) == len(engine.runs) == 3 and len(base.jvm_mb) == 3


def test_a_measurement_found_invalid_keeps_its_figures_and_is_marked_invalid_not_met():
    runs = report.load_runs()
    invalid = [(run["file"], r) for run in runs for r in run["results"] if report.invalid_reason(run["file"], r)]
    assert len(invalid) == len(report.INVALID), "every INVALID entry names a committed file's row"
    rendered = report.tables(runs)
    for file, r in invalid:
        assert f"| {r['ratio']:.2f} |" in rendered
        assert f"| invalid: {report.INVALID[(file, r['benchmark'])]} |" in rendered
