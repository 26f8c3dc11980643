"""A scheduled build killed mid-run (SIGKILL to the dbt process), then rerun, leaves no
duplicate and no missing row: after more batches the incremental models equal a full
rebuild. The builds run in their own processes (tests/incremental/replay_driver.py) with
their own catalog, since the test session's Derby metastore admits one JVM only."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

from tests.conftest import PROJECT_DIR
from tests.incremental.replay import MODELS


def driver_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tests.incremental.replay_driver", *args]


def run_driver(env, *args: str) -> str:
    done = subprocess.run(driver_command(*args), cwd=PROJECT_DIR, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def test_a_build_killed_mid_run_then_rerun_equals_a_full_rebuild(tmp_path):
    env = {**os.environ, "STREAM_WINDOWS_SPARK_DIR": str(tmp_path / "spark")}
    run_driver(env, "setup", "first:400")

    # Killed somewhere between the first model's start and the last one's post-hook
    # (the three models take a few seconds here).
    delay = random.Random(os.getpid()).uniform(0.5, 4.0)
    killed = subprocess.Popen(driver_command("next:900"), cwd=PROJECT_DIR, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    for line in killed.stdout:
        if line.strip() == "building":
            break
    time.sleep(delay)
    os.killpg(killed.pid, signal.SIGKILL)
    rest = killed.stdout.read()
    killed.wait(timeout=60)
    assert killed.returncode == -signal.SIGKILL and "built" not in rest, (delay, rest)

    output = run_driver(env, "next:900", "next:1300", "compare:1300")
    report = json.loads(output.strip().splitlines()[-1])
    assert report == {"differing": dict.fromkeys(MODELS, 0), "rows": dict.fromkeys(MODELS, 1300)}, delay
