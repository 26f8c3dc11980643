"""The Spark layer's tests make their own DataFrames, on the run's session without the
whole project's build. Shared here: the interval plans' limits, a fixture over them."""

import pytest

# The interval plan's limits, for the `interval_plan` fixture (indirect parametrization).
PLANS = [
    pytest.param({}, id="distinct starts"),
    # Numbered by ranges whatever the machine's cores (on two, one task numbers them all).
    pytest.param({"ROWS_PER_RANGE": 4, "ONE_TASK_UP_TO_CORES": 0}, id="distinct starts, numbered by ranges"),
    pytest.param({"DISTINCT_VALUES_LIMIT": 1, "ONE_TASK_UP_TO_CORES": 0}, id="general plan"),
    # On a machine of few cores one task numbers them all: past ROWS_PER_RANGE, and in the
    # general plan, whose rows still carry their range (numbered by range, then keys).
    pytest.param({"ROWS_PER_RANGE": 4, "ONE_TASK_UP_TO_CORES": 10**6}, id="distinct starts, one task on few cores"),
    pytest.param({"DISTINCT_VALUES_LIMIT": 1, "ONE_TASK_UP_TO_CORES": 10**6}, id="general plan, one task on few cores"),
]


@pytest.fixture
def interval_plan(request, monkeypatch):
    """The interval plan's limits for one test (the general plan runs past
    DISTINCT_VALUES_LIMIT distinct starts; outputs past ROWS_PER_RANGE rows are numbered
    by ranges on more than ONE_TASK_UP_TO_CORES cores)."""
    from streamwindows.spark.interval_semantics import emission, stream

    for name, value in request.param.items():
        monkeypatch.setattr(stream if name == "DISTINCT_VALUES_LIMIT" else emission, name, value)
    return request.param
