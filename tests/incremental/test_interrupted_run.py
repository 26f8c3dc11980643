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

import pytest

from tests.conftest import PROJECT_DIR
from tests.incremental.replay import KILLED_RUN_MODELS as MODELS


def driver_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "tests.incremental.replay_driver", *args]


def run_driver(env, *args: str) -> str:
    done = subprocess.run(driver_command(*args), cwd=PROJECT_DIR, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


@pytest.mark.proof
def test_a_build_killed_mid_run_then_rerun_equals_a_full_rebuild(tmp_path):
    """A `proof` test (make test-all): a real process killed at a random moment. Guarded
    in `make test` by the runs that fail at a named point of the protocol and are rerun
    (test_batch_by_batch_equals_full_rebuild.py:
    test_a_run_failing_in_its_commit_then_rerun_equals_a_full_rebuild and its Python
    models' twin)."""
    env = {**os.environ, "STREAM_WINDOWS_SPARK_DIR": str(tmp_path / "spark")}
    # The first process builds the first 400 readings whole, then is killed during its
    # incremental run somewhere between the first model's start and the last one's
    # post-hook (the six models take a few seconds here).
    delay = random.Random(os.getpid()).uniform(0.5, 4.0)
    killed = subprocess.Popen(driver_command("setup", "first:400", "next:900"), cwd=PROJECT_DIR, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
    builds = 0
    for line in killed.stdout:
        builds += line.strip() == "building"
        if builds == 2:
            break
    assert builds == 2, "the driver ended before its incremental run"
    time.sleep(delay)
    os.killpg(killed.pid, signal.SIGKILL)
    rest = killed.stdout.read()
    killed.wait(timeout=60)
    assert killed.returncode == -signal.SIGKILL and "built" not in rest, (delay, rest)

    output = run_driver(env, "next:900", "next:1300", "compare:1300")
    report = json.loads(output.strip().splitlines()[-1])
    assert report["differing"] == dict.fromkeys(MODELS, 0), (delay, report)
    assert report["rows"] == report["rebuilt_rows"], (delay, report)
    # One row per reading in the per-row windows (the Fenl one too); one per full
    # 24-reading window; one per 6-hour field window that a later reading closed (starts
    # at hours 0..643 of 650); one per city and day (Jan 1-28) in the cron window; one
    # per city and hour that a 3-hour reading covers (hours 0..651).
    expected = {"hourly_temperatures_city_stats_24h": 1300, "hourly_temperatures_city_count_window_24": 2 * (650 - 23),
                "hourly_temperatures_city_field_6h": 2 * (650 - 6), "hourly_temperatures_city_fenl_daily": 1300,
                "hourly_temperatures_city_fenl_days": 2 * 28, "hourly_temperatures_city_valid_3h": 2 * 652}
    assert {m: report["rows"][m] for m in MODELS} == expected, (delay, report)
