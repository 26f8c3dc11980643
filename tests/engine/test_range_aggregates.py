"""Range aggregates: values, NULL semantics, result types, spec parsing and its errors."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamwindows.errors import InvalidParameterError
from streamwindows.range_aggregates import (
    AGGREGATE_FUNCTIONS,
    AggregateFunction,
    parse_aggregates,
    register_aggregate,
)

from .reference_field_dimension import aggregate as reference_aggregate
from .reference_field_dimension import is_null


def compute(spec, columns, lo, hi):
    dtypes = {name: pd.Series(values).dtype for name, values in columns.items()}
    (parsed,) = parse_aggregates({"out": spec}, dtypes, "test")
    result = parsed.compute(columns, np.asarray(lo), np.asarray(hi))
    assert pd.Series(result).dtype == parsed.dtype, (spec, result, parsed.dtype)
    return [None if is_null(v) else v for v in pd.Series(result, dtype=object)]


INTS = np.array([5, 1, 7, 3, 2], dtype=np.int64)
NULLABLE = pd.array([4, None, 9, None, 1], dtype="Int64")
FLOATS = np.array([1.5, np.nan, -2.0, np.nan, 0.25])
LO = [0, 1, 3, 2, 4, 0]
HI = [5, 2, 4, 2, 5, 0]  # includes an all-NULL range (1, 2), (3, 4) and empty ones


@pytest.mark.parametrize(
    "spec, column, expected",
    [
        pytest.param("sum(c)", INTS, [18, 1, 3, None, 2, None], id="sum int, empty -> NULL"),
        pytest.param("sum(c)", NULLABLE, [14, None, None, None, 1, None], id="sum skips NULL"),
        pytest.param("sum(c)", FLOATS, [-0.25, None, None, None, 0.25, None], id="sum float"),
        pytest.param("count(*)", FLOATS, [5, 1, 1, 0, 1, 0], id="count star counts NULL rows"),
        pytest.param("count(c)", FLOATS, [3, 0, 0, 0, 1, 0], id="count column skips NULL"),
        pytest.param("avg(c)", INTS, [3.6, 1.0, 3.0, None, 2.0, None], id="avg int is float"),
        pytest.param("avg(c)", NULLABLE, [14 / 3, None, None, None, 1.0, None], id="avg NULLs"),
        pytest.param("min(c)", NULLABLE, [1, None, None, None, 1, None], id="min nullable"),
        pytest.param("max(c)", FLOATS, [1.5, None, None, None, 0.25, None], id="max float"),
        pytest.param("min(c)", INTS, [1, 1, 3, None, 2, None], id="min int"),
        pytest.param("first(c)", NULLABLE, [4, None, None, None, 1, None], id="first keeps NULL"),
        pytest.param("last(c)", FLOATS, [0.25, None, None, None, 0.25, None], id="last"),
        pytest.param("last(c)", INTS, [2, 1, 3, None, 2, None], id="last int"),
    ],
)
def test_named_ranges(spec, column, expected):
    result = compute(spec, {"c": column}, LO, HI)
    assert len(result) == len(expected)
    for got, want in zip(result, expected, strict=True):
        if want is None:
            assert got is None
        else:
            assert got == pytest.approx(want)


@pytest.mark.parametrize(
    "column, spec, expected",
    [
        pytest.param(
            pd.array(["b", None, "a", "c", None], dtype=object), "min(c)",
            ["a", None, "c", None, None, None], id="min of strings",
        ),
        pytest.param(
            np.array(["b", None, "a", "c", None], dtype=object), "max(c)",
            ["c", None, "c", None, None, None], id="max of strings",
        ),
        pytest.param(
            pd.to_datetime(["2024-01-03", None, "2024-01-01", "2024-01-02", None]).array,
            "min(c)",
            [pd.Timestamp("2024-01-01"), None, pd.Timestamp("2024-01-02"), None, None, None],
            id="min of timestamps",
        ),
        pytest.param(
            np.array([True, False, True, False, False]), "sum(c)", [2, 0, 0, None, 0, None],
            id="sum of booleans counts true",
        ),
        pytest.param(
            np.array([True, False, True, False, False]), "max(c)",
            [True, False, False, None, False, None], id="max of booleans",
        ),
    ],
)
def test_other_types(column, spec, expected):
    assert compute(spec, {"c": column}, LO, HI) == expected


@pytest.mark.parametrize(
    "column, dtypes",
    [
        pytest.param(
            np.array([1, 2], dtype=np.int32),
            {"sum": "Int64", "avg": "float64", "min": "Int64", "first": "Int64",
             "count": "int64"},
            id="int32",
        ),
        pytest.param(
            np.array([1.0, 2.0]),
            {"sum": "float64", "avg": "float64", "max": "float64", "last": "float64"},
            id="float64",
        ),
        pytest.param(
            pd.array([1, None], dtype="Int64"),
            {"sum": "Int64", "min": "Int64", "first": "Int64"},
            id="nullable Int64",
        ),
        pytest.param(
            pd.to_datetime(["2024-01-01", "2024-01-02"]).tz_localize("UTC").array,
            {"min": "datetime64[ns, UTC]", "first": "datetime64[ns, UTC]"},
            id="timestamps with a time zone",
        ),
        pytest.param(
            np.array(["a", "b"], dtype=object), {"max": "object", "last": "object"},
            id="strings",
        ),
    ],
)
def test_declared_dtype_is_computed_dtype(column, dtypes):
    for function, dtype in dtypes.items():
        (parsed,) = parse_aggregates({"o": f"{function}(c)"}, {"c": column.dtype}, "test")
        assert str(parsed.dtype) == dtype
        result = parsed.compute({"c": column}, np.array([0, 1]), np.array([2, 1]))
        assert str(pd.Series(result).dtype) == dtype


def test_integer_sum_is_exact_beyond_float_precision():
    big = np.array([2**62, 1, 2**62, -(2**62)], dtype=np.int64)
    result = compute("sum(c)", {"c": big}, [0, 1], [2, 4])
    assert result == [2**62 + 1, 1]  # the prefix sums overflow in between and wrap back


def test_float_sum_does_not_cancel_across_ranges():
    column = np.array([1e17, -1e17, 1.0, 2.0])
    assert compute("sum(c)", {"c": column}, [2], [4]) == [3.0]


null_ints = st.lists(st.one_of(st.none(), st.integers(-1000, 1000)), max_size=30)
null_floats = st.lists(
    st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False)), max_size=30
)


@st.composite
def column_and_ranges(draw):
    values = draw(st.one_of(null_ints, null_floats))
    is_float = any(isinstance(v, float) for v in values)
    if is_float:
        column = np.array([np.nan if v is None else v for v in values], dtype=np.float64)
    else:
        column = pd.array(values, dtype="Int64")
    n = len(values)
    bounds = draw(
        st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), min_size=1, max_size=20)
    )
    lo = [min(a, b) for a, b in bounds]
    hi = [max(a, b) for a, b in bounds]
    return values, column, lo, hi


@settings(max_examples=250, deadline=None)
@given(column_and_ranges(), st.sampled_from(["sum", "count", "avg", "min", "max", "first",
                                              "last"]))
def test_ranges_match_naive_sql(case, function):
    values, column, lo, hi = case
    result = compute(f"{function}(c)", {"c": column}, lo, hi)
    for got, a, b in zip(result, lo, hi, strict=True):
        rows = [{"c": v} for v in values[a:b]]
        want = reference_aggregate(function, "c", rows)
        if want is None:
            assert got is None
        elif isinstance(want, float) or isinstance(got, float):
            assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-6)
        else:
            assert got == want


def test_count_star_needs_no_column():
    (parsed,) = parse_aggregates({"n": "COUNT(*)"}, ["a"], "test")
    assert parsed.columns == ()
    assert parsed.spec == "count(*)"
    assert list(parsed.compute({}, np.array([0, 2]), np.array([3, 2]))) == [3, 0]


@pytest.mark.parametrize(
    "spec, function, columns",
    [
        pytest.param("sum(volume)", "sum", ("volume",), id="string"),
        pytest.param("  AVG ( volume ) ", "avg", ("volume",), id="case and spaces"),
        pytest.param(("Max", "volume"), "max", ("volume",), id="tuple"),
        pytest.param("first(`low temp`)", "first", ("low temp",), id="backticks"),
        pytest.param(("count", "*"), "count", (), id="tuple count star"),
    ],
)
def test_parse_specs(spec, function, columns):
    (parsed,) = parse_aggregates({"o": spec}, ["volume", "low temp"], "test")
    assert (parsed.name, parsed.function.name, parsed.columns) == ("o", function, columns)


def test_parse_keeps_the_given_order():
    parsed = parse_aggregates({"b": "sum(x)", "a": "count(*)", "c": "last(x)"}, ["x"], "f")
    assert [a.name for a in parsed] == ["b", "a", "c"]


@pytest.mark.parametrize(
    "aggregates, message",
    [
        pytest.param(
            {"m": "mode(x)"},
            "f(): `aggregates` must be a known aggregate function (avg, completeness, corr, "
            "count, cov, distinctnest, first, last, max, median, min, nest, nth, rate, stddev, "
            "sum, var); got 'mode(x)' for output 'm'.",
            id="unknown function",
        ),
        pytest.param(
            {"t": "sum(volumes)"},
            "f(): `aggregates` must be columns of the input (available: x, s); got "
            "'volumes' in sum(volumes) for output 't'.",
            id="missing column",
        ),
        pytest.param(
            {"t": "sum volume"},
            "f(): `aggregates` must be an aggregate spec like 'sum(volume)', 'count(*)' or "
            "('sum', 'volume'); got 'sum volume' for output 't'.",
            id="bad syntax",
        ),
        pytest.param(
            {"t": "sum(*)"},
            "f(): `aggregates` must be a call of sum() on a column ('*' is only allowed in "
            "count(*)); got 'sum(*)' for output 't'.",
            id="star outside count",
        ),
        pytest.param(
            {"t": "sum(x, x)"},
            "f(): `aggregates` must be a call of sum() with 1 argument(s) (column); got "
            "'sum(x, x)' for output 't'.",
            id="too many arguments",
        ),
        pytest.param(
            {"t": "avg(s)"},
            "f(): `aggregates` must be a call of avg() on a numeric column; got 's' "
            "(dtype object) in avg(s) for output 't'.",
            id="wrong column type",
        ),
        pytest.param(
            ["sum(x)"],
            "f(): `aggregates` must be a mapping of output column name to aggregate spec; "
            "got '['sum(x)']'.",
            id="not a mapping",
        ),
    ],
)
def test_parse_errors(aggregates, message):
    dtypes = {"x": np.dtype("int64"), "s": np.dtype("O")}
    with pytest.raises(InvalidParameterError) as error:
        parse_aggregates(aggregates, dtypes, "f")
    assert str(error.value) == message
    assert error.value.parameter == "aggregates"


def test_parse_error_names_the_model():
    with pytest.raises(InvalidParameterError, match=r"^model 'trades_30s': f\(\): "):
        parse_aggregates({"m": "mode(x)"}, ["x"], "f", model="trades_30s")


def test_a_new_function_is_one_registration():
    def kernel(columns, lo, hi):
        return (hi - lo) * 2

    register_aggregate(
        AggregateFunction("double_count", kernel, lambda dtypes: np.dtype("int64"),
                          ("column_or_star",))
    )
    try:
        (parsed,) = parse_aggregates({"d": "DOUBLE_COUNT(*)"}, ["x"], "f")
        assert list(parsed.compute({}, np.array([0]), np.array([3]))) == [6]
        with pytest.raises(ValueError, match="already registered"):
            register_aggregate(AGGREGATE_FUNCTIONS["double_count"])
    finally:
        del AGGREGATE_FUNCTIONS["double_count"]
