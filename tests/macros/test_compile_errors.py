"""Every invalid argument of the window macros fails at compile time with a message
naming the macro, the argument, the rule (allowed values) and the value given."""

from __future__ import annotations

import pytest

from tests.conftest import compile_error, run_dbt

WEATHER = "ref('stg_sqlstream__weather_readings')"
RANGE_OK = dict(
    relation=WEATHER, time_column="'rowtime'", range="\"INTERVAL '1' DAY\"",
    aggregates="{'t': 'min(temp)'}", arrival_order="'seq'",
)
PURCHASES = "ref('stg_fenl__purchases')"
FENL_OK = dict(
    relation=PURCHASES, entity="'entity'", time_column="'purchased_at'", arrival_order="'seq'",
    aggregates="{'s': 'sum(amount)'}",
)
ROWS_OK = dict(relation=WEATHER, rows="3", aggregates="{'t': 'min(temp)'}", arrival_order="'seq'")
VIEWS = "ref('stg_clickstream__page_views')"
SESSIONS_OK = dict(relation=VIEWS, time_column="'viewed_at'", gap="'30 minutes'", partition_by="'user_id'",
                   arrival_order="'view_id'", aggregates="{'n': 'count(*)'}")
TUMBLE_OK = dict(relation=VIEWS, time_column="'viewed_at'", size="'1 hour'", aggregates="{'n': 'count(*)'}")
PANES_OK = dict(relation="ref('auction_bids')", group_by="['bidder']",
                pane="{'time_column': 'date_time', 'size': '1 hour'}", aggregates="{'p': 'max(price)'}",
                arrival_order="'seq'")


def call(macro: str, base: dict, **changes: str | None) -> str:
    args = {**base, **changes}
    rendered = ", ".join(f"{k}={v}" for k, v in args.items() if v is not None)
    return f"{{{{ {macro}({rendered}) }}}}"


CASES = [
    pytest.param(
        call("range_window_aggregate", RANGE_OK, aggregates="{'t': 'mode(temp)'}"),
        "range_window_aggregate(): `aggregates['t']` must be a known function: one of avg, completeness, corr, "
        "count, cov, distinctnest, first, last, max, median, min, nest, nth, rate, stddev, sum, var; got 'mode(temp)'.",
        id="unknown aggregate",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, aggregates="{'t': 'temp'}"),
        "range_window_aggregate(): `aggregates['t']` must be 'function(column)'",
        id="aggregate without a function",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, aggregates="{'t': 'sum(*)'}"),
        "`aggregates['t']` must be function(column); only count and rate take *; got 'sum(*)'.",
        id="star outside count",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, aggregates="{}"),
        "range_window_aggregate(): `aggregates` must be a mapping of output column to 'function(column)'",
        id="no aggregates",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, range="\"INTERVAL '1' MONTH\""),
        "range_window_aggregate(): `range` must be a number >= 0 (numeric RANGE) or an interval such as "
        "\"INTERVAL '1' DAY\" or '90 minutes' with a unit in microsecond, millisecond, second, minute, "
        "hour, day, week; got 'INTERVAL '1' MONTH'.",
        id="interval with a month",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, range="'a while'"),
        "`range` must be a number >= 0 (numeric RANGE) or an interval",
        id="interval that is not one",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, range="-5", direction="'following'"),
        "range_window_aggregate(): `range` must be a number >= 0 (numeric RANGE) or an interval",
        id="following with a negative size",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, arrival_order=None),
        "range_window_aggregate(): `arrival_order` must be a column giving arrival order (such as seq) "
        "when ties='arrival'; got 'None'.",
        id="missing arrival order column",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, ties="'strict'"),
        "range_window_aggregate(): `ties` must be one of arrival, peers; got 'strict'.",
        id="unknown ties",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, direction="'backwards'"),
        "range_window_aggregate(): `direction` must be one of preceding, following; got 'backwards'.",
        id="unknown direction",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, time_column="'observed_at'"),
        "range_window_aggregate(): `time_column` must be a column of stream_windows.stg_sqlstream__weather_readings "
        "(seq, rowtime, city, temp); got 'observed_at'.",
        id="missing time column",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, time_column="'city'"),
        "range_window_aggregate(): `time_column` must be a timestamp or date column (the window is measured in "
        "time) of stream_windows.stg_sqlstream__weather_readings; got 'city of type string'.",
        id="string time column under an interval range",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, range="3600"),
        "range_window_aggregate(): `time_column` must be a numeric column (the window is measured in numbers) of "
        "stream_windows.stg_sqlstream__weather_readings; got 'rowtime of type timestamp'.",
        id="timestamp time column under a numeric range",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, time_column="'entity'"),
        "fenl_aggregate(): `time_column` must be a timestamp, date or numeric column of "
        "stream_windows.stg_fenl__purchases; got 'entity of type string'.",
        id="string time column in a Fenl window",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, aggregates="{'t': 'max(temperature)'}"),
        "`aggregates['t']` must be a column of stream_windows.stg_sqlstream__weather_readings "
        "(seq, rowtime, city, temp); got 'temperature'.",
        id="aggregate over a missing column",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, partition_by="['town']"),
        "`partition_by` must be a column of stream_windows.stg_sqlstream__weather_readings",
        id="missing partition column",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, final_only="true"),
        "range_window_aggregate(): `final_only` must be false unless direction='following'",
        id="final_only on preceding",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, tick="0.5"),
        "range_window_aggregate(): `tick` must be a number > 0, and only with a numeric range",
        id="tick with an interval",
    ),
    pytest.param(
        call("rows_window_aggregate", ROWS_OK, rows="\"INTERVAL '1' HOUR\""),
        "rows_window_aggregate(): `rows` must be a whole number of rows >= 0 (ROWS takes a row count, "
        "not an interval); got 'INTERVAL '1' HOUR'.",
        id="rows with an interval",
    ),
    pytest.param(
        call("rows_window_aggregate", ROWS_OK, rows="-1"),
        "rows_window_aggregate(): `rows` must be a whole number of rows >= 0",
        id="negative rows",
    ),
    pytest.param(
        call("rows_window_aggregate", ROWS_OK, arrival_order="none"),
        "rows_window_aggregate(): `arrival_order` must be a column giving arrival order (such as seq); got 'None'.",
        id="rows without an order column",
    ),
    pytest.param(
        call("rows_window_aggregate", ROWS_OK, aggregates="{'t': 'mode(temp)'}"),
        "rows_window_aggregate(): `aggregates['t']` must be a known function",
        id="rows with an unknown aggregate",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_sliding(0, 'is_valid')"),
        "fenl_sliding(): `n` must be a whole number of rows >= 1; got '0'.",
        id="fenl sliding over zero rows",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_sliding(2.5, 'is_valid')"),
        "fenl_sliding(): `n` must be a whole number of rows >= 1; got '2.5'.",
        id="fenl sliding over a fraction of rows",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_since(period='weekly')"),
        "fenl_since(): `period` must be one of hourly, daily, monthly, yearly; got 'weekly'.",
        id="fenl unknown cron period",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_since('is_valid', period='daily')"),
        "fenl_since(): `predicate` must be given alone, or replaced by `period`",
        id="fenl since with both a predicate and a period",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="'tumbling'"),
        "fenl_aggregate(): `window` must be 'cumulative' (default), fenl_sliding(n, predicate), "
        "fenl_since(predicate) or fenl_since(period=...); got 'tumbling'.",
        id="fenl unknown window",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, aggregates="{'s': 'mode(amount)'}"),
        "fenl_aggregate(): `aggregates['s']` must be a known function: one of avg, corr, count, cov, first, last, "
        "max, median, min, stddev, sum, var; got 'mode(amount)'.",
        id="fenl unknown aggregate",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, aggregates="{'s': 'sum(amount) | spread()'}"),
        "fenl_aggregate(): `aggregates['s']` must be a pipeline 'function(column) | function() ...' whose later "
        "stages are function() with function one of mean, avg, count, first, last, max, min, sum; "
        "got 'sum(amount) | spread()'.",
        id="fenl unknown repeated aggregate",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, aggregates="{'s': 'sum(amount) | mean(amount)'}"),
        "fenl_aggregate(): `aggregates['s']` must be a pipeline",
        id="fenl repeated aggregate with its own column",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, aggregates="{'s': 'sum(price)'}"),
        "fenl_aggregate(): `aggregates['s']` must be a column of",
        id="fenl aggregate over a missing column",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, arrival_order="none"),
        "fenl_aggregate(): `arrival_order` must be a column giving arrival order (such as seq)",
        id="fenl per-row window without an order column",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_since(period='daily')", time_zone="'Mars/Olympus'"),
        "fenl_aggregate(): `time_zone` must be an IANA time zone name such as 'UTC' or 'Europe/Berlin'; "
        "got 'Mars/Olympus'.",
        id="fenl unknown time zone",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, time_zone="'Europe/Berlin'"),
        "fenl_aggregate(): `time_zone` must be 'UTC' unless the window is a cron window",
        id="fenl time zone without a cron window",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_since(period='yearly')", columns="['seq']"),
        "fenl_aggregate(): `columns` must be none with a cron window",
        id="fenl pass-through columns with a cron window",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, incremental="{'partition': 'week'}"),
        "range_window_aggregate(): `incremental['partition']` must be 'day' or 'month' for a timestamp time column "
        "or a number > 0 for a numeric one; got 'week'.",
        id="incremental with an unknown partition",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, incremental="{'partition': 'day', 'late_rows': 'drop'}"),
        "range_window_aggregate(): `incremental['late_rows']` must be one of error, audit, reprocess; got 'drop'.",
        id="incremental late rows dropped",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, incremental="{'partition': 'day'}", columns="['city', 'temp']"),
        "range_window_aggregate(): `columns` must be a list holding the time column and the arrival order for an "
        "incremental build (rowtime, seq)",
        id="incremental without the time and arrival columns passed through",
    ),
    pytest.param(
        call("rows_window_aggregate", ROWS_OK, incremental="{'partition': 'day'}"),
        "rows_window_aggregate(): `incremental['time_column']` must be the column whose time partitions the table; "
        "got 'None'.",
        id="incremental rows window without a time column",
    ),
    pytest.param(
        call("range_window_aggregate", RANGE_OK, incremental="{'partition': 'day'}"),
        "range_window_aggregate(): `incremental` must be used in a model configured materialized='incremental', "
        "incremental_strategy='insert_overwrite', partition_by=['time_partition']",
        id="incremental in a model that is not incremental",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, window="fenl_since(period='daily')", incremental="{'partition': 'day'}",
             aggregates="{'s': 'sum(amount) | mean()'}"),
        "fenl_aggregate(): `aggregates['s']` must be one function per output with an incremental cron window (a "
        "repeated stage runs over every period since the first); got 'sum | avg'.",
        id="fenl incremental cron window with a repeated stage",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, aggregates="{'s': 'stddev(amount)'}", incremental="{'partition': 'day'}"),
        "fenl_aggregate(): `aggregates['s']` must be functions that carry state between incremental runs (count, sum, "
        "min, max, avg, first, last), or no `incremental`; got 'stddev()'.",
        id="fenl incremental stage without state",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, columns="['entity', 'amount']", incremental="{'partition': 'day'}"),
        "fenl_aggregate(): `columns` must be a list holding the time column and the arrival order for an incremental "
        "build (purchased_at, seq)",
        id="fenl incremental without the time and arrival columns passed through",
    ),
    pytest.param(
        call("fenl_aggregate", FENL_OK, incremental="{'partition': 'day'}"),
        "fenl_aggregate(): `incremental` must be used in a model configured materialized='incremental', "
        "incremental_strategy='insert_overwrite', partition_by=['time_partition']",
        id="fenl incremental in a model that is not incremental",
    ),
    pytest.param(
        call("partial_aggregate", PANES_OK, pane="'date_time'", incremental="{'partition': 'day'}"),
        "partial_aggregate(): `pane` must be a time pane {'time_column': <column>, 'size': <interval or number>} "
        "for an incremental build (its panes close as time passes); got 'date_time'.",
        id="incremental panes without a time pane",
    ),
    pytest.param(
        call("partial_aggregate", PANES_OK, arrival_order=None, incremental="{'partition': 'day'}"),
        "partial_aggregate(): `arrival_order` must be a column giving arrival order for an incremental build (it tells "
        "new rows from processed ones); got 'None'.",
        id="incremental panes without arrival order",
    ),
    pytest.param(
        call("partial_aggregate", PANES_OK, incremental="{'partition': 10}"),
        "partial_aggregate(): `incremental['partition']` must be 'day' or 'month' (the window's size is an "
        "interval); got '10'.",
        id="incremental timestamp panes with a numeric partition",
    ),
    pytest.param(
        call("session_window_aggregate", SESSIONS_OK, gap="0"),
        "session_window_aggregate(): `gap` must be greater than zero (a session ends a gap after its last event); "
        "got '0'.",
        id="session gap of zero",
    ),
    pytest.param(
        call("session_window_aggregate", SESSIONS_OK, gap="30"),
        "session_window_aggregate(): `time_column` must be a numeric column (the window is measured in numbers) of ",
        id="numeric session gap over a timestamp",
    ),
    pytest.param(
        call("session_window_aggregate", SESSIONS_OK, gap_boundary="'closed'"),
        "session_window_aggregate(): `gap_boundary` must be one of",
        id="unknown gap boundary",
    ),
    pytest.param(
        call("session_window_aggregate", SESSIONS_OK, aggregates="{'window_end': 'max(viewed_at)'}"),
        "session_window_aggregate(): `aggregates['window_end']` must be named apart from the output's own columns",
        id="session aggregate named like an output column",
    ),
    pytest.param(
        call("session_window_aggregate", SESSIONS_OK, arrival_order=None, aggregates="{'f': 'first(page)'}"),
        "session_window_aggregate(): `arrival_order` must be a column giving arrival order for first()",
        id="session first() without arrival order",
    ),
    pytest.param(
        call("session_window_aggregate", SESSIONS_OK, incremental="{'partition': 'day'}"),
        "session_window_aggregate(): `incremental` must be used in a model configured materialized='incremental', "
        "incremental_strategy='insert_overwrite', partition_by=['time_partition']",
        id="incremental sessions in a model that is not incremental",
    ),
    pytest.param(
        call("cumulate", TUMBLE_OK, size="'1 hour'", step="'25 minutes'"),
        "cumulate(): `step` must be a step that divides `size`",
        id="cumulate step not dividing the size",
    ),
    pytest.param(
        call("hop", TUMBLE_OK, slide="5"),
        "hop(): `slide` must be an interval, as `size` is; got '5'.",
        id="numeric slide with an interval size",
    ),
    pytest.param(
        call("window_top_n", {**TUMBLE_OK, "aggregates": None}, n="0", order_by="'dwell_ms desc'",
             arrival_order="'view_id'"),
        "window_top_n(): `n` must be a whole number of rows >= 1; got '0'.",
        id="top-n of zero rows",
    ),
    pytest.param(
        call("window_top_n", {**TUMBLE_OK, "aggregates": None}, n="3", order_by="'dwell_ms sideways'",
             arrival_order="'view_id'"),
        "window_top_n(): `order_by` must be a column, or a list of columns, each optionally followed by asc or desc; "
        "got 'dwell_ms sideways'.",
        id="top-n order with an unknown direction",
    ),
]


@pytest.mark.parametrize(("inline", "message"), CASES)
def test_invalid_argument_fails_at_compile_time(project_build, inline, message):
    assert message in compile_error(inline)


def test_valid_call_compiles(project_build):
    result = run_dbt("compile", "--inline", call("range_window_aggregate", RANGE_OK))
    assert "range between 86400000000 preceding and 1 preceding" in result.result.results[0].node.compiled_code
