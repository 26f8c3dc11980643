"""Alternating rounds, the protocol every paired figure is measured by, and the result
row made from them: judged by the medians, with the best runs' ratio, every run and each
side's peak memory beside them (the report's table shows them)."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class Side:
    """One side's timed rounds: seconds and peak memory (MB) of each."""

    runs: list[float] = field(default_factory=list)
    jvm_mb: list[float] = field(default_factory=list)
    python_workers_mb: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    @property
    def best(self) -> float:
        return min(self.runs)

    @property
    def shown(self) -> list[float]:
        """The timed runs, to the hundredth of a second, for the printout."""
        return [round(t, 2) for t in self.runs]

    def record(self) -> dict:
        return {"runs_s": [round(t, 3) for t in self.runs], "median_s": round(self.median, 3),
                "best_s": round(self.best, 3), "peak_jvm_mb": round(max(self.jvm_mb)),
                "peak_python_workers_mb": round(max(self.python_workers_mb))}


ROUNDS = 4  # alternating, baseline first; the first untimed


def timed(action: Callable[[], None]):
    """(seconds, PeakMemory) of one run of `action`."""
    from bench.memory import PeakMemory

    with PeakMemory() as peak:
        started = time.perf_counter()
        action()
        seconds = time.perf_counter() - started
    return seconds, peak


def alternating(*actions: Callable[[], None], rounds: int = ROUNDS) -> tuple[Side, ...]:
    """Run the actions (a baseline, the measured side, and any other baseline) in
    `rounds` alternating rounds, in the order given, and time every
    round but the first: a session's first run of a query shape costs up to twice a later
    one, and alternation puts the machine's swings and order effects (the heap one side
    leaves behind) on both sides alike. Each run's peak memory (the Spark JVM and the
    Python workers, sampled from /proc) is kept with its time. Judge by the medians."""
    if rounds < 4:
        raise ValueError(f"rounds={rounds}: at least 3 timed rounds after the untimed first")
    if len(actions) < 2:
        raise ValueError(f"{len(actions)} action(s): alternating rounds pair at least two")
    sides = tuple(Side() for _ in actions)
    for round_number in range(rounds):
        for side, action in zip(sides, actions, strict=True):
            seconds, peak = timed(action)
            if round_number:
                side.runs.append(seconds)
                side.jvm_mb.append(peak.jvm_mb)
                side.python_workers_mb.append(peak.python_workers_mb)
    return sides


def paired(benchmark: str, baseline: str, base: Side, measured: str, engine: Side, goal: float | None,
           also: str = "") -> dict:
    """A result row judged by the ratio of the medians; the best runs' ratio, every run
    and each side's peak memory go with it (the report's table shows them)."""
    return {
        "benchmark": benchmark, "baseline": baseline, "baseline_s": base.median, "measured": measured,
        "measured_s": engine.median, "ratio": engine.median / base.median, "goal": goal,
        "best_ratio": engine.best / base.best, "rounds": {"baseline": base.record(), "measured": engine.record()},
        "also": also,
    }
