"""Fault injection for the tests that prove a model's run safe at each point of its
protocol: with the environment variable STREAM_WINDOWS_FAILPOINT=<point> the run fails
there. An environment variable, read as the run executes: a change of --vars would make
dbt parse the project again. (The stream_windows package's SQL hooks read the same
variable, in its own _sw_failpoint: the package runs on any Spark adapter.)"""

from __future__ import annotations

import os

from dbt_common.exceptions import DbtRuntimeError

FAILPOINT_VARIABLE = "STREAM_WINDOWS_FAILPOINT"


def failpoint(point: str, model_name: str) -> None:
    """Fail the run of `model_name` when STREAM_WINDOWS_FAILPOINT names `point`."""
    if os.environ.get(FAILPOINT_VARIABLE, "") == point:
        raise DbtRuntimeError(f"stream_windows: failpoint '{point}' reached in model {model_name} "
                              f"({FAILPOINT_VARIABLE})")
