"""Peak resident memory of the Spark JVM and the Python workers, sampled while a
benchmark runs (Linux /proc; the JVM is this process's child, the workers its)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return found


def _rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class PeakMemory:
    """with PeakMemory() as peak: ...; then peak.jvm_mb, peak.python_workers_mb."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.jvm_mb = 0.0
        self.python_workers_mb = 0.0
        self._stop = threading.Event()

    def _sample(self) -> None:
        while not self._stop.is_set():
            jvm_total, workers_total = 0.0, 0.0
            for jvm in _children(os.getpid()):
                jvm_total += _rss_mb(jvm)
                stack = _children(jvm)
                while stack:
                    pid = stack.pop()
                    workers_total += _rss_mb(pid)
                    stack += _children(pid)
            self.jvm_mb = max(self.jvm_mb, jvm_total)
            self.python_workers_mb = max(self.python_workers_mb, workers_total)
            time.sleep(self.interval)

    def __enter__(self) -> PeakMemory:
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
