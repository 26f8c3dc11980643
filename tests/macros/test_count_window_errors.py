"""count_window_aggregate's argument checks fail at compile time naming the argument."""

from __future__ import annotations

import pytest

from tests.conftest import compile_error

POINTS = "ref('stg_streaminsight__point_events')"


def call(**changes: str) -> str:
    args = {"relation": POINTS, "time_column": "'start_time'", "n": "2", "arrival_order": "'seq'",
            "aggregates": "{'s': 'sum(reading)'}", **changes}
    return "{{ count_window_aggregate(" + ", ".join(f"{k}={v}" for k, v in args.items()) + ") }}"


@pytest.mark.parametrize(("inline", "message"), [
    pytest.param(call(n="0"), "count_window_aggregate(): `n` must be a whole number of distinct start times >= 1; "
                 "got '0'.", id="n below 1"),
    pytest.param(call(aggregates="{'point_at': 'sum(reading)'}"),
                 "count_window_aggregate(): `aggregates['point_at']` must be named apart from the output's own columns",
                 id="aggregate named like an output column"),
    pytest.param(call(aggregates="{'s': 'sum(nope)'}"), "count_window_aggregate(): `aggregates['s']` must be a "
                 "column of", id="aggregate over a missing column"),
    pytest.param(call(aggregates="{'s': 'sum(event_name)'}"), "count_window_aggregate(): `aggregates['s']`",
                 id="sum over a string column"),
    pytest.param(call(time_column="'event_name'"), "count_window_aggregate(): `time_column` must be an integer or "
                 "timestamp column (a count window needs a tick); got 'event_name string'.", id="time without a tick"),
    pytest.param(call(tick="0.5"), "count_window_aggregate(): `tick` must be a whole number >= 1",
                 id="fractional tick"),
    pytest.param(call(arrival_order="none", incremental="{'partition': 5}"),
                 "count_window_aggregate(): `arrival_order` must be a column giving arrival order for an incremental "
                 "build (it tells new rows from processed ones); got 'None'.", id="incremental without arrival order"),
    pytest.param(call(incremental="{'partition': 5, 'time_column': 'start_time'}"),
                 "count_window_aggregate(): `incremental` must be {'partition': 'day' or 'month' (timestamp time) or a "
                 "number > 0 (numeric time), 'late_rows': 'error' | 'audit' | 'reprocess'}",
                 id="incremental with a time column"),
    pytest.param(call(incremental="{'partition': 5}"),
                 "count_window_aggregate(): `incremental` must be used in a model configured "
                 "materialized='incremental'",
                 id="incremental in a model that is not incremental"),
])
def test_invalid_argument_fails_at_compile_time(project_build, inline, message):
    assert message in compile_error(inline)
