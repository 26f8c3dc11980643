"""Cost growth: each window kind on the same generated streams as its benchmark at 1M,
10M and 30M rows, as the time per event at that size over the time per event at 1M
(1.0 is linear growth; above it, a plan step grows faster than its input: a sort
spilling, one task doing the work of many). Goal: 1.3 for the StreamBase tumbling
window, RANGE (`ties='arrival'`, 1 hour) and the count window; the other kinds are
context.

Each size's data is generated before it is timed. At 1M: one untimed run, then the
median of 3; at 10M and 30M: one run each (tens of seconds, where the machine's swings
matter less). Interval semantics runs at 1M, 3M and 10M events: at 30M its 56M pieces
would take minutes on two cores for a figure of context. Peak memory (the Spark JVM and
the Python workers) is kept with each run."""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable

from bench import (
    fenl_windows,
    odysseus_intervals,
    odysseus_panes,
    sqlstream_ranges,
    streambase_field_dimension,
    streaminsight_count_windows,
)
from bench.harness import to_noop
from bench.memory import PeakMemory
from bench.rounds import timed

SIZES = (1_000_000, 10_000_000, 30_000_000)
INTERVAL_SIZES = (1_000_000, 3_000_000, 10_000_000)
DATA = ".spark/bench/growth"
PER_EVENT_GOAL = 1.3
JUDGED = ("StreamBase tumbling 30/30", "sqlstream RANGE 1 hour, ties='arrival', 10 cities",
          "StreamInsight count window N=100, 500 groups")


def _kinds(spark) -> list[tuple[str, tuple[int, ...], Callable[[int], Callable[[], None]]]]:
    """(kind, sizes, prepare): prepare(rows) writes that size's data and returns the
    action to time."""
    def field_dimension(size: int, advance: int):
        def prepare(rows):
            trades = streambase_field_dimension.make_trades(spark, rows, f"{DATA}/trades")
            return streambase_field_dimension.engine_action(trades, size, advance)
        return prepare

    def fenl(entities: int, window: str, aggregates: str = fenl_windows.AGGREGATES):
        sql = {}

        def prepare(rows):
            fenl_windows.make_events(spark, entities, f"{DATA}/fenl_{entities}", "bench_growth_fenl", rows)
            sql.setdefault("text", fenl_windows.fenl("bench_growth_fenl", window, aggregates))
            return to_noop(sql["text"])
        return prepare

    def count_window(rows):
        streaminsight_count_windows.make_events(spark, f"{DATA}/count_window", rows)
        return to_noop(streaminsight_count_windows.count_window_sql())

    def intervals(rows):
        events = odysseus_intervals.make_events(spark, rows, f"{DATA}/intervals")
        return to_noop(lambda: odysseus_intervals.engine(events))

    def range_window(rows):
        sqlstream_ranges.make_input(spark, rows, f"{DATA}/weather")
        return to_noop(sqlstream_ranges.query("1 hour", "arrival"))

    def panes(rows):
        odysseus_panes.make_events(spark, rows, f"{DATA}/panes")
        return to_noop(odysseus_panes.merged_sql(spark))

    return [
        ("StreamBase tumbling 30/30", SIZES, field_dimension(30, 30)),
        ("StreamBase hopping 70/10", SIZES, field_dimension(70, 10)),
        ("Fenl cumulative, 100k entities", SIZES, fenl(100_000, "none")),
        ("Fenl sliding(10, pred), 100k entities", SIZES, fenl(100_000, "fenl_sliding(10, 'is_valid')")),
        ("Fenl daily cron, 1k entities", SIZES,
         fenl(1_000, "fenl_since(period='daily')",
              "{'amount_sum': 'sum(amount)', 'events': 'count(*)', 'amount_mean': 'mean(amount)'}")),
        ("sqlstream RANGE 1 hour, ties='arrival', 10 cities", SIZES, range_window),
        ("StreamInsight count window N=100, 500 groups", SIZES, count_window),
        ("Odysseus interval semantics, 1k groups", INTERVAL_SIZES, intervals),
        ("7-day by 1-day panes, 1k groups", SIZES, panes),
    ]


def _memory(peak: PeakMemory) -> str:
    return f"{peak.jvm_mb / 1024:.1f} + {peak.python_workers_mb / 1024:.1f} GB"


def selected(kinds: list) -> list:
    """The kinds, or those whose names start with an entry of BENCH_GROWTH_KINDS
    (comma-separated), such as `StreamBase tumbling,sqlstream RANGE`."""
    named = [k.strip() for k in os.environ.get("BENCH_GROWTH_KINDS", "").split(",") if k.strip()]
    unknown = [n for n in named if not any(kind.startswith(n) for kind, *_ in kinds)]
    if unknown:
        raise ValueError(f"BENCH_GROWTH_KINDS: no kind starts with {unknown}; kinds: {[k for k, *_ in kinds]}")
    return [k for k in kinds if not named or any(k[0].startswith(n) for n in named)]


def run(spark) -> list[dict]:
    results = []
    for kind, sizes, prepare in selected(_kinds(spark)):
        first, *larger = sizes
        action = prepare(first)
        action()  # untimed: the session's first run of this shape
        runs = [timed(action) for _ in range(3)]
        base_s = statistics.median(t for t, _ in runs)
        base_peak = max((p for _, p in runs), key=lambda p: p.jvm_mb + p.python_workers_mb)
        print(f"  {kind}: {first:,} rows {base_s:.2f}s {[round(t, 2) for t, _ in runs]}", flush=True)
        for rows in larger:
            seconds, peak = timed(prepare(rows))
            per_event = (seconds / rows) / (base_s / first)
            print(f"  {kind}: {rows:,} rows {seconds:.2f}s ({seconds / base_s:.1f}x, per event {per_event:.2f})",
                  flush=True)
            results.append({
                "benchmark": f"growth: {kind}, time per event at {rows // 1_000_000}M rows over at "
                             f"{first // 1_000_000}M",
                "baseline": f"{first:,} rows (median of 3), per event", "baseline_s": base_s / first * rows,
                "measured": f"{rows:,} rows (one run)", "measured_s": seconds, "ratio": per_event,
                "goal": PER_EVENT_GOAL if kind in JUDGED else None,
                "also": f"the {first // 1_000_000}M time {base_s:.2f}s, times {rows / first:.0f}, is the baseline; "
                        f"peak memory (JVM + Python workers) {_memory(peak)}, at {first // 1_000_000}M "
                        f"{_memory(base_peak)}",
            })
    return results
