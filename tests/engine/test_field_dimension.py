"""The field-dimension engine: the document's examples, every error message, and
hypothesis properties against the tuple-by-tuple reference."""


import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamwindows import (
    InvalidParameterError,
    NullFieldError,
    OutOfOrderError,
    check_arrival_order,
    field_coordinates,
    field_dimension_aggregate,
    group_windows,
    order_emissions,
    resolve_emissions,
    validate_parameters,
)
from streamwindows.field_dimension import ARRIVAL_POSITION, CANDIDATE_COLUMNS
from tests.engine.field_dimension_cases import (
    AGGREGATES,
    LATE,
    assert_same_emissions,
    opened_late,
    scenarios,
    trades,
)
from tests.engine.reference_field_dimension import reference_field_dimension, rows

COLUMNS = ["window_start", "window_end", "emit_kind", "emitted_at", "emit_seq", "row_count"]


def weather(days=range(1, 11)):
    days = list(days)
    return pd.DataFrame(
        {
            "day": days,
            "city": "Springfield",
            "low_temp": [60.0 + (d * 7) % 5 for d in days],
        }
    )


TRADES_OUT = ["symbol", *COLUMNS, "total_volume"]


@pytest.mark.parametrize(
    "frame, options, columns, expected",
    [
        pytest.param(
            trades(),
            dict(field="time", size=30, advance=30, group_by=["symbol"], seq="seq"),
            TRADES_OUT,
            [
                ("AMAT", 0, 30, "close", 40, 0, 2, 300),
                ("AMAT", 30, 60, "close", 65, 1, 3, 400),
                ("INTC", 30, 60, "close", 65, 2, 2, 400),
            ],
            id="document trades table, tumbling 30",
        ),
        pytest.param(
            trades(),
            dict(field="time", size=30, group_by=["symbol"], seq="seq", drain=True),
            TRADES_OUT,
            [
                ("AMAT", 0, 30, "close", 40, 0, 2, 300),
                ("AMAT", 30, 60, "close", 65, 1, 3, 400),
                ("INTC", 30, 60, "close", 65, 2, 2, 400),
                ("AMAT", 60, 90, "drain", None, 3, 1, 100),
            ],
            id="trades with drain: window 4 follows",
        ),
        pytest.param(
            trades(),
            dict(field="time", size=30, offset=5, group_by=["symbol"]),
            TRADES_OUT,
            [
                ("AMAT", 5, 35, "close", 40, 0, 2, 300),
                ("AMAT", 35, 65, "close", 65, 1, 3, 400),
                ("INTC", 35, 65, "close", 65, 2, 2, 400),
            ],
            id="offset 5: windows at 5, 35, 65",
        ),
        pytest.param(
            trades(),
            dict(field="time", size=30, offset=-7, group_by=["symbol"]),
            TRADES_OUT,
            [
                ("AMAT", -7, 23, "close", 40, 0, 2, 300),
                ("AMAT", 23, 53, "close", 55, 1, 3, 400),
                ("INTC", 23, 53, "close", 55, 2, 1, 100),
            ],
            id="negative offset: INTC's tuple closes AMAT's window",
        ),
        pytest.param(
            trades(),
            dict(field="time", size=30, opening="none", group_by=["symbol"], drain=True),
            TRADES_OUT,
            [
                ("AMAT", 10, 40, "close", 40, 0, 2, 300),
                ("AMAT", 40, 70, "drain", None, 1, 4, 500),
                ("INTC", 45, 75, "drain", None, 2, 2, 400),
            ],
            id="opening none: windows start at the opening tuple",
        ),
        pytest.param(
            trades(),
            dict(field="time", size=30, emit_every=10, group_by=["symbol"]),
            TRADES_OUT,
            [
                ("AMAT", 0, 30, "intermediate", 20, 0, 1, 100),
                ("AMAT", 0, 30, "close", 40, 1, 2, 300),
                ("AMAT", 30, 60, "intermediate", 50, 2, 2, 200),
                ("INTC", 30, 60, "intermediate", 50, 3, 1, 100),
                ("AMAT", 30, 60, "close", 65, 4, 3, 400),
                ("INTC", 30, 60, "close", 65, 5, 2, 400),
            ],
            id="emit_every 10: only points after the opening value (not AMAT's 10 and 40, "
               "not INTC's 40, opened at 45)",
        ),
        pytest.param(
            trades(),
            dict(field="time", group_by=["symbol"]),
            TRADES_OUT,
            [],
            id="no size: windows never close and nothing is emitted",
        ),
        pytest.param(
            trades(),
            dict(field="time", group_by=["symbol"], drain=True),
            TRADES_OUT,
            [
                ("AMAT", 10, None, "drain", None, 0, 6, 800),
                ("INTC", 45, None, "drain", None, 1, 2, 400),
            ],
            id="no size with drain: one window per group",
        ),
        pytest.param(
            trades(),
            dict(field="time", size=30, advance=20),
            ["window_start", "window_end", "emit_kind", "emitted_at", "row_count",
             "total_volume"],
            [
                (0, 30, "close", 40, 2, 300),
                (20, 50, "close", 50, 4, 500),
            ],
            id="no group_by, hopping 30/20",
        ),
    ],
)
def test_named_cases(frame, options, columns, expected):
    result = field_dimension_aggregate(
        frame, aggregates={"total_volume": "sum(volume)"}, **options
    )
    assert list(result.columns) == [*options.get("group_by", []), *COLUMNS, "total_volume"]
    assert rows(result[columns]) == expected


def test_zero_then_nine_point_two():
    frame = pd.DataFrame({"x": [0.0, 9.2], "v": [1, 2]})
    result = field_dimension_aggregate(
        frame, field="x", size=1, advance=1, aggregates={"n": "count(*)"}, drain=True
    )
    assert rows(result[COLUMNS]) == [
        (0.0, 1.0, "close", 9.2, 0, 1),
        (9.0, 10.0, "drain", None, 1, 1),
    ]
    assert result["window_start"].dtype == np.float64


def test_weekly_moving_average_single():
    frame = weather()
    result = field_dimension_aggregate(
        frame, field="day", size=7, advance=1, group_by="city",
        aggregates={"low_avg": "avg(low_temp)", "num_days": "count(*)"},
    )
    assert rows(result[["window_start", "emitted_at", "num_days"]]) == [
        (1, 8, 7), (2, 9, 7), (3, 10, 7),
    ]
    assert result["low_avg"].iloc[0] == pytest.approx(frame["low_temp"][:7].mean())
    assert result["window_start"].dtype == np.int64


def test_weekly_moving_average_all():
    frame = weather()
    result = field_dimension_aggregate(
        frame, field="day", size=7, advance=1, group_by="city", optional_windows="all",
        aggregates={"low_avg": "avg(low_temp)", "num_days": "count(*)"},
    )
    assert rows(result[["window_start", "emitted_at", "num_days"]]) == [
        (-5, 2, 1), (-4, 3, 2), (-3, 4, 3), (-2, 5, 4), (-1, 6, 5), (0, 7, 6),
        (1, 8, 7), (2, 9, 7), (3, 10, 7),
    ]
    assert result["low_avg"].iloc[1] == pytest.approx(frame["low_temp"][:2].mean())


@pytest.mark.parametrize(
    "options, expected",
    [
        pytest.param(
            dict(optional_windows="single"),
            [(10, 30, "intermediate", 24, 0, 1, 100), (10, 30, "intermediate", 24, 1, 1, 100)],
            id="single: [10, 30) opened at 14 emits points 18 and 22 at 24, not 14",
        ),
        pytest.param(
            dict(optional_windows="single", drain=True),
            [(10, 30, "intermediate", 24, 0, 1, 100), (10, 30, "intermediate", 24, 1, 1, 100),
             (10, 30, "drain", None, 2, 2, 300), (15, 35, "drain", None, 3, 1, 200),
             (20, 40, "drain", None, 4, 1, 200)],
            id="single with drain: the windows opened at 24 emit none of their points",
        ),
        pytest.param(
            dict(optional_windows="all"),
            [(-5, 15, "close", 24, 0, 1, 100), (0, 20, "close", 24, 1, 1, 100),
             (5, 25, "intermediate", 24, 2, 1, 100), (5, 25, "intermediate", 24, 3, 1, 100),
             (10, 30, "intermediate", 24, 4, 1, 100), (10, 30, "intermediate", 24, 5, 1, 100)],
            id="all: windows opened in the past emit only their points after 14",
        ),
        pytest.param(
            dict(optional_windows="all", drain=True),
            [(-5, 15, "close", 24, 0, 1, 100), (0, 20, "close", 24, 1, 1, 100),
             (5, 25, "intermediate", 24, 2, 1, 100), (5, 25, "intermediate", 24, 3, 1, 100),
             (10, 30, "intermediate", 24, 4, 1, 100), (10, 30, "intermediate", 24, 5, 1, 100),
             (5, 25, "drain", None, 6, 2, 300), (10, 30, "drain", None, 7, 2, 300),
             (15, 35, "drain", None, 8, 1, 200), (20, 40, "drain", None, 9, 1, 200)],
            id="all with drain",
        ),
    ],
)
def test_window_opened_late_emits_only_its_later_points(options, expected):
    result = field_dimension_aggregate(
        opened_late(), aggregates={"total_volume": "sum(volume)"}, **LATE, **options
    )
    assert rows(result[[*COLUMNS, "total_volume"]]) == expected
    reference = reference_field_dimension(
        opened_late(), aggregates={"total_volume": "sum(volume)"}, **LATE, **options
    )
    assert rows(reference[[*COLUMNS, "total_volume"]]) == expected


@pytest.mark.parametrize(
    "optional_windows, points",
    [
        pytest.param("single", [(10, 18), (10, 22)], id="single: 18 and 22, not 14"),
        pytest.param("all", [(5, 17), (5, 21), (10, 18), (10, 22)],
                     id="all: 17, 21 and 18, 22, not 9, 13, 14"),
    ],
)
def test_intermediate_points_are_after_the_opening_value(optional_windows, points):
    """Which points the windows emit, as the candidates' thresholds: only p > 14."""
    frame = opened_late()
    params = validate_parameters(frame.dtypes, aggregates={"n": "count(*)"},
                                 optional_windows=optional_windows, **LATE)
    candidates = group_windows(frame.assign(**{ARRIVAL_POSITION: [0, 1]}), params)
    emitted = resolve_emissions(candidates, frame["x"].to_numpy())
    intermediate = emitted[emitted["emit_kind"] == "intermediate"].sort_values(
        ["window_start", "emit_threshold"]
    )
    assert rows(intermediate[["window_start", "emit_threshold"]]) == points
    assert set(intermediate["emitted_at"]) == {24}
    assert set(intermediate["row_count"]) == {1}  # tuple 14 only: 24 enters after


def test_timestamps_come_back_as_timestamps():
    frame = trades()
    base = pd.Timestamp("2024-03-01 09:30:00", tz="America/New_York")
    frame["time"] = base + pd.to_timedelta(frame["time"], unit="s")
    result = field_dimension_aggregate(
        frame, field="time", size=pd.Timedelta(seconds=30),  # base is a multiple of 30 s
        group_by=["symbol"], aggregates={"total_volume": "sum(volume)"}, drain=True,
    )
    assert str(result["window_start"].dtype) == "datetime64[ns, America/New_York]"
    assert rows(result[TRADES_OUT]) == [
        ("AMAT", base, base + pd.Timedelta(seconds=30), "close",
         base + pd.Timedelta(seconds=40), 0, 2, 300),
        ("AMAT", base + pd.Timedelta(seconds=30), base + pd.Timedelta(seconds=60), "close",
         base + pd.Timedelta(seconds=65), 1, 3, 400),
        ("INTC", base + pd.Timedelta(seconds=30), base + pd.Timedelta(seconds=60), "close",
         base + pd.Timedelta(seconds=65), 2, 2, 400),
        ("AMAT", base + pd.Timedelta(seconds=60), base + pd.Timedelta(seconds=90), "drain",
         None, 3, 1, 100),
    ]


def test_integer_field_with_fractional_emit_every_keeps_integer_bounds():
    result = field_dimension_aggregate(
        trades(), field="time", size=30, emit_every=12.5, group_by=["symbol"],
        aggregates={"total_volume": "sum(volume)"},
    )
    assert result["window_start"].dtype == np.int64
    assert str(result["emitted_at"].dtype) == "Int64"
    assert rows(result[["symbol", "window_start", "emit_kind", "emitted_at"]])[:2] == [
        ("AMAT", 0, "intermediate", 20), ("AMAT", 0, "close", 40),
    ]


def test_seq_orders_the_rows_and_keeps_ties_stable():
    frame = trades().iloc[::-1].reset_index(drop=True)
    expected = field_dimension_aggregate(
        trades(), field="time", size=30, group_by=["symbol"],
        aggregates={"total_volume": "sum(volume)", "last_volume": "last(volume)"},
    )
    result = field_dimension_aggregate(
        frame, field="time", size=30, group_by=["symbol"], seq="seq",
        aggregates={"total_volume": "sum(volume)", "last_volume": "last(volume)"},
    )
    pd.testing.assert_frame_equal(result, expected)


def test_empty_input_has_the_output_schema():
    frame = trades().iloc[:0]
    result = field_dimension_aggregate(
        frame, field="time", size=30, group_by=["symbol"], emit_every=5, drain=True,
        aggregates={"total_volume": "sum(volume)", "n": "count(*)"},
    )
    assert list(result.columns) == [*TRADES_OUT, "n"]
    assert len(result) == 0
    assert str(result["total_volume"].dtype) == "Int64"


def test_null_group_keys_form_a_group():
    frame = pd.DataFrame({"t": [1, 2, 3], "g": ["a", None, None], "v": [1, 2, 3]})
    result = field_dimension_aggregate(
        frame, field="t", group_by="g", aggregates={"s": "sum(v)"}, drain=True
    )
    assert rows(result[["g", "s"]]) == [("a", 1), (None, 5)]


# --------------------------------------------------------------------------------------
# Error messages


def out_of_order_trades():
    frame = trades()
    frame.loc[4, "time"] = 35  # INTC's tuple (seq 5) arrives after AMAT's 41
    return frame


def test_out_of_order_message():
    with pytest.raises(OutOfOrderError) as error:
        field_dimension_aggregate(
            out_of_order_trades(), field="time", size=30, group_by=["symbol"], seq="seq",
            aggregates={"total_volume": "sum(volume)"}, model="trades_volume_30s",
        )
    assert str(error.value) == (
        "model 'trades_volume_30s': OutOfOrder: field `time` went backwards at arrival "
        "position 5 in group {'symbol': 'INTC'}: value 35 is less than the "
        "previous value 41 (arrival position 4, group {'symbol': 'AMAT'}). The field "
        "must not decrease in arrival order."
    )
    e = error.value
    assert (e.model, e.position, e.seq, e.group, e.value, e.previous_value) == (
        "trades_volume_30s", 4, 5, {"symbol": "INTC"}, 35, 41
    )


def test_out_of_order_message_without_model_or_groups():
    with pytest.raises(OutOfOrderError) as error:
        field_dimension_aggregate(
            out_of_order_trades(), field="time", size=30, aggregates={}
        )
    assert str(error.value) == (
        "OutOfOrder: field `time` went backwards at arrival position 4 in group "
        "(no group_by): value 35 is less than the previous value 41 (arrival position 3, "
        "group (no group_by)). The field must not decrease in arrival order."
    )
    assert error.value.model is None


def test_null_field_message():
    frame = trades()
    frame["time"] = frame["time"].astype("Int64")
    frame.loc[2, "time"] = None
    with pytest.raises(NullFieldError) as error:
        field_dimension_aggregate(
            frame, field="time", size=30, group_by=["symbol"], seq="seq",
            aggregates={}, model="m",
        )
    assert str(error.value) == (
        "model 'm': NULL field: `time` is NULL at arrival position 3 in group "
        "{'symbol': 'AMAT'}. Every row needs a finite value."
    )
    assert (error.value.field, error.value.position, error.value.group) == (
        "time", 2, {"symbol": "AMAT"}
    )


def test_infinite_field_message():
    frame = pd.DataFrame({"x": [1.0, np.inf], "g": ["a", "b"]})
    with pytest.raises(NullFieldError) as error:
        field_dimension_aggregate(frame, field="x", size=1, group_by="g", aggregates={})
    assert str(error.value) == (
        "NULL field: `x` is not finite (inf) at arrival position 1 in group {'g': 'b'}. "
        "Every row needs a finite value."
    )


def test_null_seq_message():
    frame = trades()
    frame["seq"] = frame["seq"].astype(float)
    frame.loc[6, "seq"] = np.nan
    with pytest.raises(NullFieldError) as error:
        field_dimension_aggregate(
            frame, field="time", size=30, group_by=["symbol"], seq="seq", aggregates={}
        )
    assert str(error.value) == (
        "NULL field: `seq` is NULL at arrival position 6 in group {'symbol': 'INTC'}. "
        "Every row needs a finite value."
    )


def test_null_comes_before_a_later_decrease():
    with pytest.raises(NullFieldError):
        check_arrival_order(np.array([1.0, np.nan, 0.5]), field="x")
    with pytest.raises(OutOfOrderError) as error:
        check_arrival_order(
            np.array([1.0, 0.5, np.nan]), positions=np.array([10, 11, 12]),
            seqs=np.array([7, 8, 9]), field="x",
        )
    assert (error.value.position, error.value.seq, error.value.previous_position) == (
        11, 8, 10
    )
    check_arrival_order(np.array([1, 1, 2, 2]), field="x")  # ties are fine


F = "field_dimension_aggregate()"


@pytest.mark.parametrize(
    "options, message",
    [
        pytest.param(
            dict(size=30, advance=40),
            f"{F}: `advance` must be <= size (30); got '40'.",
            id="advance greater than size",
        ),
        pytest.param(
            dict(advance=10),
            f"{F}: `advance` must be omitted when `size` is not given (a window that never "
            "closes cannot advance); got '10'.",
            id="advance without size",
        ),
        pytest.param(dict(size=0), f"{F}: `size` must be a number > 0; got '0'.",
                     id="size zero"),
        pytest.param(dict(size=-5), f"{F}: `size` must be a number > 0; got '-5'.",
                     id="size negative"),
        pytest.param(dict(size="30"), f"{F}: `size` must be a number > 0; got '30'.",
                     id="size not a number"),
        pytest.param(dict(size=True), f"{F}: `size` must be a number > 0; got 'True'.",
                     id="size boolean"),
        pytest.param(dict(size=30, advance=0),
                     f"{F}: `advance` must be a number > 0; got '0'.", id="advance zero"),
        pytest.param(dict(size=30, emit_every=-1),
                     f"{F}: `emit_every` must be a number > 0; got '-1'.",
                     id="emit_every negative"),
        pytest.param(dict(size=30, offset=float("nan")),
                     f"{F}: `offset` must be a number; got 'nan'.", id="offset nan"),
        pytest.param(
            dict(size=30, opening="close"),
            f"{F}: `opening` must be one of 'advance', 'none'; got 'close'.",
            id="unknown opening",
        ),
        pytest.param(
            dict(size=30, optional_windows="some"),
            f"{F}: `optional_windows` must be one of 'single', 'all'; got 'some'.",
            id="unknown optional_windows",
        ),
        pytest.param(
            dict(size=30, opening="none", advance=10),
            f"{F}: `advance` must be omitted when opening='none'; got '10'.",
            id="advance with opening none",
        ),
        pytest.param(
            dict(offset=3),
            f"{F}: `offset` must be 0 when windows do not follow the advance grid "
            "(opening='none' or no `size`); got '3'.",
            id="offset without grid",
        ),
        pytest.param(
            dict(size=30, opening="none", optional_windows="all"),
            f"{F}: `optional_windows` must be 'single' when windows do not follow the "
            "advance grid (opening='none' or no `size`); got 'all'.",
            id="all without grid",
        ),
        pytest.param(
            dict(field="timestamp"),
            f"{F}: `field` must be a column of the input (available: seq, time, symbol, "
            "volume); got 'timestamp'.",
            id="missing field",
        ),
        pytest.param(
            dict(field="symbol"),
            f"{F}: `field` must be an int, float or timestamp column; got 'symbol' "
            "(dtype object).",
            id="field of the wrong type",
        ),
        pytest.param(
            dict(group_by=["symbol", "exchange"]),
            f"{F}: `group_by` must be columns of the input (available: seq, time, symbol, "
            "volume); got 'exchange'.",
            id="missing group column",
        ),
        pytest.param(
            dict(group_by=["symbol", "symbol"]),
            f"{F}: `group_by` must be a list of distinct columns; got 'symbol, symbol'.",
            id="repeated group column",
        ),
        pytest.param(
            dict(seq="arrival"),
            f"{F}: `seq` must be a column of the input (available: seq, time, symbol, "
            "volume) or None; got 'arrival'.",
            id="missing seq column",
        ),
        pytest.param(
            dict(drain="yes"), f"{F}: `drain` must be True or False; got 'yes'.",
            id="drain not boolean",
        ),
        pytest.param(
            dict(aggregates={"m": "mode(volume)"}),
            f"{F}: `aggregates` must be a known aggregate function (avg, completeness, corr, "
            "count, cov, distinctnest, first, last, max, median, min, nest, nth, rate, stddev, "
            "sum, var); got 'mode(volume)' for output 'm'.",
            id="unknown aggregate",
        ),
        pytest.param(
            dict(aggregates={"v": "sum(volumes)"}),
            f"{F}: `aggregates` must be columns of the input (available: seq, time, "
            "symbol, volume); got 'volumes' in sum(volumes) for output 'v'.",
            id="aggregate of a missing column",
        ),
        pytest.param(
            dict(aggregates={"row_count": "count(*)"}),
            f"{F}: `aggregates` must be keyed by output names that are neither group_by "
            "columns nor reserved (window_start, window_end, emit_kind, emitted_at, "
            "emit_seq, row_count, emit_threshold, opened_after_position, "
            "group_first_position, contents_lo, contents_hi, emitted_position); got "
            "'row_count'.",
            id="aggregate named like an output column",
        ),
        pytest.param(
            dict(model=3), f"{F}: `model` must be a string or None; got '3'.",
            id="model not a string",
        ),
    ],
)
def test_invalid_parameter_messages(options, message):
    arguments = dict(field="time", aggregates={"total_volume": "sum(volume)"})
    arguments.update(options)
    with pytest.raises(InvalidParameterError) as error:
        field_dimension_aggregate(trades(), **arguments)
    assert str(error.value) == message
    assert isinstance(error.value, ValueError)


def test_invalid_parameter_names_the_model():
    with pytest.raises(InvalidParameterError) as error:
        field_dimension_aggregate(
            trades(), field="time", size=-1, aggregates={}, model="trades_volume_30s"
        )
    assert str(error.value) == (
        "model 'trades_volume_30s': field_dimension_aggregate(): `size` must be a number "
        "> 0; got '-1'."
    )
    assert (error.value.parameter, error.value.value, error.value.model) == (
        "size", -1, "trades_volume_30s"
    )


def test_timestamp_lengths_are_seconds_or_timedeltas():
    dtypes = {"t": np.dtype("M8[ns]")}
    params = validate_parameters(
        dtypes, field="t", size=1.5, emit_every=pd.Timedelta("250ms"), aggregates={}
    )
    assert (params.size, params.advance, params.emit_every) == (
        1_500_000_000, 1_500_000_000, 250_000_000
    )
    with pytest.raises(InvalidParameterError) as error:
        validate_parameters(dtypes, field="t", size="30s", aggregates={})
    assert str(error.value) == (
        f"{F}: `size` must be a number of seconds or a timedelta > 0; got '30s'."
    )


def test_validation_happens_before_any_data_is_read():
    frame = out_of_order_trades()
    with pytest.raises(InvalidParameterError):
        field_dimension_aggregate(frame, field="time", size=30, advance=60, aggregates={})


def test_group_windows_errors():
    params = validate_parameters(
        trades().dtypes, field="time", emit_every=5, group_by=["symbol"], aggregates={}
    )
    frame = trades().assign(**{ARRIVAL_POSITION: range(8)})
    with pytest.raises(InvalidParameterError) as error:
        group_windows(frame[frame.symbol == "AMAT"], params)
    assert str(error.value) == (
        "group_windows(): `horizon` must be the largest field value of the input when "
        "emit_every is set without size; got 'NULL'."
    )
    with pytest.raises(InvalidParameterError) as error:
        group_windows(frame, params, horizon=65)
    assert str(error.value) == (
        "group_windows(): `group_df` must be the rows of exactly one group; got '2 groups'."
    )
    with pytest.raises(InvalidParameterError) as error:
        group_windows(trades(), params, horizon=65)
    assert str(error.value) == (
        "group_windows(): `group_df` must be a frame with a column 'arrival_position'; "
        "got 'seq, time, symbol, volume'."
    )


# --------------------------------------------------------------------------------------
# Properties against the reference


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_engine_matches_reference(scenario):
    frame, options = scenario
    expected = reference_field_dimension(frame, aggregates=AGGREGATES, **options)
    actual = field_dimension_aggregate(frame, aggregates=AGGREGATES, **options)
    assert_same_emissions(actual, expected, repr(options))


@settings(max_examples=200, deadline=None)
@given(scenarios())
def test_window_contents_are_contiguous_group_ranges(scenario):
    """The facts the vectorization rests on, checked on the reference alone.

    Every emission's contents are the group's rows (in arrival order) from the first
    one with value >= window_start: up to value < window_end for closes and drains, and
    for intermediates up to the first row with value >= point, which is also exactly
    the rows that arrived before the emitting tuple; every point lies after the value
    of the window's first row (the tuple that opened it).
    """
    frame, options = scenario
    reference = reference_field_dimension(
        frame, aggregates={}, with_contents=True, **options
    )
    ordered = frame.sort_values(options["seq"]) if "seq" in options else frame
    values = ordered["t"].tolist()
    keys = [tuple(ordered[c].iloc[i] for c in options["group_by"]) for i in range(len(values))]
    for row in reference.itertuples(index=False):
        row = row._asdict()
        key = tuple(row[c] for c in options["group_by"])
        members = [i for i, k in enumerate(keys) if k == key]
        member_values = [values[i] for i in members]
        start, end = row["window_start"], row["window_end"]
        lo = next(j for j, v in enumerate(member_values) if v >= start)
        if row["emit_kind"] == "intermediate":
            point = row["point"]
            assert point > member_values[lo], (row, member_values)
            hi = sum(1 for v in member_values if v < point)
            emitter = next(
                i for i, v in enumerate(values) if i > members[lo] and v >= row["emitted_at"]
            )
            arrived = [i for i in members if i < emitter and values[i] >= start]
            assert row["contents"] == arrived
        else:
            hi = sum(1 for v in member_values if end is None or v < end)
        assert row["contents"] == members[lo:hi], (row, members, member_values)


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.randoms(use_true_random=False))
def test_distributed_pipeline_matches(scenario, random):
    """group_windows per group (shuffled rows, any group order) + resolve + order, as a
    Spark layer runs them, gives field_dimension_aggregate's output, and the contents
    ranges of the emitted candidates are the reference's contents."""
    frame, options = scenario
    direct = field_dimension_aggregate(frame, aggregates=AGGREGATES, **options)
    reference = reference_field_dimension(
        frame, aggregates={}, with_contents=True, **options
    )
    params = validate_parameters(frame.dtypes, aggregates=AGGREGATES, **options)
    ordered = frame.sort_values(options["seq"], kind="stable") if "seq" in options else frame
    ordered = ordered.reset_index(drop=True)
    ordered[ARRIVAL_POSITION] = np.arange(len(ordered))
    horizon = ordered["t"].iloc[-1] if len(ordered) else None
    if options["group_by"]:
        parts = [part for _, part in ordered.groupby(options["group_by"], sort=False)]
    else:
        parts = [ordered]
    random.shuffle(parts)
    candidates = pd.concat(
        [group_windows(part.sample(frac=1, random_state=random.randint(0, 99)), params,
                       horizon=horizon) for part in parts]
        or [group_windows(ordered, params)],
        ignore_index=True,
    )
    assert list(candidates.columns) == [
        *options["group_by"], *CANDIDATE_COLUMNS, *AGGREGATES
    ]
    emissions = resolve_emissions(
        candidates, field_coordinates(ordered["t"], params), ordered[ARRIVAL_POSITION],
        drain=params.drain,
    )
    result = order_emissions(emissions, params)
    pd.testing.assert_frame_equal(result, direct)

    # The contents ranges, matched to the reference's emissions by emission order.
    phase = emissions["emit_kind"].map({"close": 0, "intermediate": 1, "drain": 2})
    emitted = emissions.assign(
        _position=emissions["emitted_position"].fillna(len(ordered)).astype(np.int64),
        _phase=phase,
    ).sort_values(
        ["_position", "_phase", "window_start", "group_first_position", "emit_threshold"],
        kind="stable",
    )
    group_positions = {}
    for key, part in (ordered.groupby(options["group_by"], sort=False)
                      if options["group_by"] else [((), ordered)]):
        key = key if isinstance(key, tuple) else (key,)
        group_positions[key] = part[ARRIVAL_POSITION].tolist()
    assert len(emitted) == len(reference)
    for (_, candidate), contents in zip(emitted.iterrows(), reference["contents"], strict=True):
        key = tuple(candidate[c] for c in options["group_by"])
        positions = group_positions[key]
        lo, hi = candidate["contents_lo"], candidate["contents_hi"]
        assert positions[lo:hi] == contents


@settings(max_examples=100, deadline=None)
@given(scenarios())
def test_timestamp_field_matches_integer_seconds(scenario):
    frame, options = scenario
    if frame["t"].dtype != np.int64 or any(
        isinstance(options.get(k), float) for k in ("size", "advance", "offset", "emit_every")
    ):
        return
    as_ints = field_dimension_aggregate(frame, aggregates=AGGREGATES, **options)
    stamped = frame.assign(t=pd.to_datetime(frame["t"], unit="s", utc=True))
    as_stamps = field_dimension_aggregate(stamped, aggregates=AGGREGATES, **options)
    for column in ("window_start", "window_end", "emitted_at"):
        expected = pd.to_datetime(as_ints[column].astype("Float64"), unit="s", utc=True)
        pd.testing.assert_series_equal(
            as_stamps[column], expected.astype("datetime64[ns, UTC]"), check_names=False
        )
    pd.testing.assert_frame_equal(
        as_stamps.drop(columns=["window_start", "window_end", "emitted_at"]),
        as_ints.drop(columns=["window_start", "window_end", "emitted_at"]),
    )


@settings(max_examples=100, deadline=None)
@given(scenarios(), st.data())
def test_out_of_order_is_reported_where_the_reference_fails(scenario, data):
    frame, options = scenario
    if len(frame) < 2:
        return
    frame = frame.sort_values(options["seq"]) if "seq" in options else frame
    frame = frame.reset_index(drop=True)
    row = data.draw(st.integers(1, len(frame) - 1))
    frame.loc[row:, "t"] = frame.loc[row:, "t"] - 100
    with pytest.raises(OutOfOrderError) as expected:
        reference_field_dimension(frame, aggregates={}, **options)
    with pytest.raises(OutOfOrderError) as actual:
        field_dimension_aggregate(frame, aggregates={}, **options)
    assert (actual.value.position, actual.value.value, actual.value.previous_value) == (
        expected.value.position, expected.value.value, expected.value.previous_value
    )
    assert actual.value.group == expected.value.group


# --------------------------------------------------------------------------------------
# The distributed building blocks on the document's example


def test_group_windows_and_resolve_on_the_trades_table():
    params = validate_parameters(
        trades().dtypes, field="time", size=30, group_by=["symbol"],
        aggregates={"total_volume": "sum(volume)"},
    )
    frame = trades().assign(**{ARRIVAL_POSITION: range(8)})
    amat = group_windows(frame[frame.symbol == "AMAT"].iloc[::-1], params)
    assert list(amat.columns) == ["symbol", *CANDIDATE_COLUMNS, "total_volume"]
    assert rows(amat) == [
        ("AMAT", 0, 30, "close", 30, 0, 0, 0, 2, 2, 300),
        ("AMAT", 30, 60, "close", 60, 2, 0, 2, 5, 3, 400),
        ("AMAT", 60, 90, "close", 90, 7, 0, 5, 6, 1, 100),
    ]
    times = frame["time"].to_numpy()
    resolved = resolve_emissions(amat, times, drain=True)
    assert rows(resolved[["window_start", "emit_kind", "emitted_at", "emitted_position"]]) == [
        (0, "close", 40, 2), (30, "close", 65, 7), (60, "drain", None, None),
    ]
    assert len(resolve_emissions(amat, times)) == 2


def test_params_survive_pickling_and_accept_dtype_names():
    import pickle

    params = validate_parameters(
        {"ts": "datetime64[us, UTC]", "sym": "object", "v": "Int64"}, field="ts", size=30,
        group_by=["sym"], aggregates={"s": "sum(v)", "m": "min(ts)"},
    )
    assert pickle.loads(pickle.dumps(params)) == params
    assert (params.field_kind, params.size) == ("timestamp", 30_000_000_000)
    assert [str(a.dtype) for a in params.aggregates] == ["Int64", "datetime64[us, UTC]"]


@st.composite
def intermediate_scenarios(draw):
    """Streams where windows often open after some of their points: hopping grids
    (advance < size), 'single' and 'all', emit_every below the advance, ties, small
    steps and gaps of a window or more, one to three groups, drain either way."""
    n = draw(st.integers(1, 16))
    steps = draw(st.lists(st.sampled_from([0, 0, 1, 2, 3, 5, 9, 25]), min_size=n, max_size=n))
    values = np.cumsum([draw(st.integers(-10, 10)), *steps[1:]])
    size = draw(st.integers(2, 20))
    advance = draw(st.integers(1, size))
    frame = pd.DataFrame({
        "t": values.astype(np.int64),
        "g": draw(st.lists(st.integers(0, draw(st.integers(0, 2))), min_size=n, max_size=n)),
        "x": pd.array(draw(st.lists(st.integers(-9, 9), min_size=n, max_size=n)), dtype="Int64"),
        "y": np.zeros(n),
    })
    options = dict(
        field="t", size=size, advance=advance, offset=draw(st.integers(-5, 5)),
        optional_windows=draw(st.sampled_from(["single", "all"])),
        emit_every=draw(st.integers(1, max(1, size))), group_by=["g"], drain=draw(st.booleans()),
    )
    return frame, options


@settings(max_examples=300, deadline=None)
@given(intermediate_scenarios())
def test_intermediate_points_match_the_reference(scenario):
    """The replay emits a window's points only after its opening tuple's value; the
    engine does the same, row for row."""
    frame, options = scenario
    expected = reference_field_dimension(frame, aggregates=AGGREGATES, **options)
    actual = field_dimension_aggregate(frame, aggregates=AGGREGATES, **options)
    assert_same_emissions(actual, expected, repr(options))


def test_huge_integer_range_matches_reference():
    # Values spread over ~1e17 with many groups: the grouped search falls back from the
    # (group, value) integer key to the arrival-rank search.
    rng = np.random.default_rng(7)
    n = 300
    frame = pd.DataFrame(
        {
            "t": np.cumsum(rng.integers(0, 10**15, n)) + 10**17,
            "g": rng.integers(0, 64, n),
            "x": pd.array(rng.integers(0, 9, n), dtype="Int64"),
            "y": rng.normal(size=n),
        }
    )
    options = dict(field="t", size=3 * 10**15, advance=10**15, optional_windows="all",
                   emit_every=7 * 10**14, group_by=["g"], drain=True)
    expected = reference_field_dimension(frame, aggregates=AGGREGATES, **options)
    actual = field_dimension_aggregate(frame, aggregates=AGGREGATES, **options)
    assert len(actual) > 500
    assert_same_emissions(actual, expected)
