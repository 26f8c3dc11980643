"""python -m bench [name ...]: run the benchmarks (all by default), print each
measurement beside its baseline from the same run, save the raw figures as
bench/results/<date>-<commit>-<names>.json (with the machine and the versions), and
regenerate bench/README.md's results tables from every committed file (bench/report.py)."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

from bench import (
    fenl_windows,
    growth,
    harness,  # noqa: F401  (sets the environment before Spark starts)
    incremental_runs,
    odysseus_intervals,
    odysseus_panes,
    on_cluster,
    report,
    same_result,
    sessions,
    single_machine,
    sqlstream_ranges,
    streambase_field_dimension,
    streaminsight_count_windows,
    widths,
)

BENCHMARKS = {"sqlstream": sqlstream_ranges, "streambase": streambase_field_dimension, "fenl": fenl_windows,
              "streaminsight": streaminsight_count_windows,
              "odysseus": odysseus_intervals, "panes": odysseus_panes, "sessions": sessions,
              "incremental": incremental_runs, "single-machine": single_machine, "growth": growth,
              "cluster": on_cluster, "widths": widths, "same-result": same_result}


def main(names: list[str]) -> int:
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s) {unknown}; known: {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    harness.compile_inline("select 1")  # starts the profile's Spark
    spark = harness.spark_session()
    spark.sparkContext.setLogLevel("ERROR")
    results, failed, path = [], [], None
    for name in names or list(BENCHMARKS):
        # One benchmark's failure neither stops the others nor loses their figures: the
        # raw file is rewritten after each one, and a failure is recorded in it.
        try:
            results += BENCHMARKS[name].run(spark)
        except Exception as error:  # noqa: BLE001 (reported, recorded, and the exit code says so)
            traceback.print_exc()
            failed.append(name)
            results.append({"benchmark": name, "failed": f"{type(error).__name__}: {error}"})
        path = report.save_run(names or list(BENCHMARKS), results, path=path)
    print()
    print(f"{'benchmark':58} {'baseline s':>10} {'measured s':>10} {'ratio':>7} {'goal':>6}  ok")
    for r in results:
        if "failed" in r:
            print(f"{r['benchmark']:58} FAILED: {r['failed']}")
            continue
        goal, ok = report.verdict(r)
        ok = "NO" if ok == "no" else ok
        print(f"{r['benchmark']:58} {r['baseline_s']:10.2f} {r['measured_s']:10.2f} {r['ratio']:7.2f} "
              f"{goal:>6}  {ok}")
        print(f"    baseline: {r['baseline']}; measured: {r['measured']}")
        if r.get("also"):
            print(f"    {r['also']}")
    print(f"\nraw results: {path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path}")
    report.write_readme()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
