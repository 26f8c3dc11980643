"""The Odysseus aggregate set (SEMANTICS.md section 5) as range kernels: named cases,
hypothesis against the plain-Python reference, numerical stability, and every error."""

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamwindows import field_dimension_aggregate
from streamwindows.errors import InvalidParameterError
from streamwindows.range_aggregates import parse_aggregates

from .reference_aggregates import reference_value, same
from .reference_field_dimension import is_null


def compute(spec, columns, lo, hi, durations=None):
    dtypes = {name: pd.Series(values).dtype for name, values in columns.items()}
    (parsed,) = parse_aggregates({"out": spec}, dtypes, "test")
    result = parsed.compute(columns, np.asarray(lo), np.asarray(hi), durations=durations)
    assert pd.Series(result).dtype == parsed.dtype, (spec, result, parsed.dtype)
    return [v if isinstance(v, list) else (None if is_null(v) else v) for v in pd.Series(result, dtype=object)]


X = np.array([4.0, np.nan, 1.0, 3.0, 2.0, 10.0])
Y = pd.array([1, 2, None, 6, 4, 3], dtype="Int64")
S = np.array(["b", None, "a", "b", None, "a"], dtype=object)
COLUMNS = {"x": X, "y": Y, "s": S}
LO = [0, 0, 2, 1, 3, 0]
HI = [6, 2, 5, 2, 3, 1]  # all rows, a NULL pair, three rows, one NULL row, empty, one row


@pytest.mark.parametrize(
    "spec, expected",
    [
        pytest.param("median(x)", [3.0, 4.0, 2.0, None, None, 4.0], id="median: odd, even -> mean of middles"),
        pytest.param("median(y)", [3.0, 1.5, 5.0, 2.0, None, 1.0], id="median of integers is float"),
        pytest.param("var(x)", [12.5, None, 1.0, None, None, None], id="var: sample, NULL below 2 values"),
        pytest.param("stddev(x)", [math.sqrt(12.5), None, 1.0, None, None, None], id="stddev sample"),
        # complete pairs of all rows: (4, 1), (3, 6), (2, 4), (10, 3); c_xy = -6.5, c_xx = 38.75, c_yy = 13
        pytest.param("cov(x, y)", [-6.5 / 3, None, 1.0, None, None, None], id="cov over complete pairs"),
        pytest.param("corr(x, y)", [-6.5 / math.sqrt(38.75 * 13), None, 1.0, None, None, None],
                     id="corr over complete pairs"),
        pytest.param("nth(s, 2)", [None, None, "b", None, None, None], id="nth keeps a NULL value"),
        pytest.param("nth(y, 3)", [None, None, 4, None, None, None], id="nth: fewer rows -> NULL"),
        pytest.param("nth(x, 1)", [4.0, 4.0, 1.0, None, None, 4.0], id="nth 1 is first"),
        pytest.param("nest(s)", [["b", None, "a", "b", None, "a"], ["b", None], ["a", "b", None], [None], [],
                                 ["b"]], id="nest keeps order and NULLs"),
        pytest.param("distinctnest(s)", [["b", None, "a"], ["b", None], ["a", "b", None], [None], [], ["b"]],
                     id="distinctnest: first arrival, NULL once"),
        pytest.param("nest(y)", [[1, 2, None, 6, 4, 3], [1, 2], [None, 6, 4], [2], [], [1]],
                     id="nest of nullable ints"),
        pytest.param("completeness(s)", [4 / 6, 0.5, 2 / 3, 0.0, None, 1.0],
                     id="completeness: non-NULL / rows, NULL when empty"),
        pytest.param("rate(*)", [3.0, 1.0, 1.5, 0.5, 0.0, 0.5], id="rate star: rows per unit (duration 2)"),
        pytest.param("rate(x)", [2.5, 0.5, 1.5, 0.0, 0.0, 0.5], id="rate of a column counts non-NULL"),
    ],
)
def test_named_ranges(spec, expected):
    result = compute(spec, COLUMNS, LO, HI, durations=2.0)
    assert len(result) == len(expected)
    for got, want in zip(result, expected, strict=True):
        assert same(got, want), (spec, result, expected)


def test_corr_of_a_constant_column_is_null():
    columns = {"x": np.array([1.0, 1.0, 1.0]), "y": np.array([1.0, 2.0, 3.0])}
    assert compute("corr(x, y)", columns, [0], [3]) == [None]
    assert compute("cov(x, y)", columns, [0], [3]) == [0.0]


def test_rate_with_unknown_duration_is_null():
    assert compute("rate(*)", {"x": X}, [0, 0], [3, 3], durations=np.array([np.nan, 3.0])) == [None, 1.0]


def test_rate_without_durations_is_a_programming_error():
    (parsed,) = parse_aggregates({"r": "rate(*)"}, ["x"], "test")
    with pytest.raises(ValueError, match=r"rate\(\*\) needs the window durations"):
        parsed.compute({}, np.array([0]), np.array([1]))


@pytest.mark.parametrize(
    "column, spec, expected",
    [
        pytest.param(pd.to_datetime(["2024-01-01", None, "2024-01-03"]).array, "nth(c, 3)",
                     [pd.Timestamp("2024-01-03")], id="nth of timestamps"),
        pytest.param(pd.to_datetime(["2024-01-01", None, "2024-01-01"]).array, "distinctnest(c)",
                     [[pd.Timestamp("2024-01-01"), None]], id="distinctnest of timestamps"),
        pytest.param(np.array([True, False, True]), "nest(c)", [[True, False, True]], id="nest of booleans"),
        pytest.param(np.array([1.5, np.nan, 1.5]), "distinctnest(c)", [[1.5, None]], id="NaN is NULL"),
    ],
)
def test_other_types(column, spec, expected):
    assert compute(spec, {"c": column}, [0], [3]) == expected


def test_declared_types():
    dtypes = {"i": np.dtype("int64"), "s": np.dtype("O"), "f": np.dtype("float64")}
    expected = {
        "median(i)": "float64", "var(i)": "float64", "stddev(f)": "float64", "cov(i, f)": "float64",
        "corr(f, i)": "float64", "nth(i, 2)": "Int64", "nth(s, 1)": "object", "rate(*)": "float64",
        "nest(i)": "object", "distinctnest(s)": "object", "completeness(s)": "float64",
    }
    for spec, dtype in expected.items():
        (parsed,) = parse_aggregates({"o": spec}, dtypes, "f")
        assert str(parsed.dtype) == dtype, spec


@pytest.mark.parametrize(
    "spec, normalized",
    [
        pytest.param("NTH(price, 2)", "nth(price, 2)", id="string with a literal"),
        pytest.param(("nth", "price", 3), "nth(price, 3)", id="tuple with an int literal"),
        pytest.param("corr( price , volume )", "corr(price, volume)", id="two columns"),
        pytest.param(("rate", "*"), "rate(*)", id="rate star"),
    ],
)
def test_parse_new_specs(spec, normalized):
    (parsed,) = parse_aggregates({"o": spec}, ["price", "volume"], "f")
    assert parsed.spec == normalized


F = "f(): `aggregates` must be"


@pytest.mark.parametrize(
    "aggregates, message",
    [
        pytest.param({"c": "corr(x)"}, f"{F} a call of corr() with 2 argument(s) (column, column); got "
                     "'corr(x)' for output 'c'.", id="corr with one column"),
        pytest.param({"c": "cov(x, y, x)"}, f"{F} a call of cov() with 2 argument(s) (column, column); "
                     "got 'cov(x, y, x)' for output 'c'.", id="cov with three columns"),
        pytest.param({"n": "nth(x)"}, f"{F} a call of nth() with 2 argument(s) (column, positive_integer); "
                     "got 'nth(x)' for output 'n'.", id="nth without n"),
        pytest.param({"n": "nth(x, 0)"}, f"{F} a call of nth() with a positive integer (1-based) as "
                     "argument 2; got '0' in nth(x, 0) for output 'n'.", id="nth zero"),
        pytest.param({"n": "nth(x, two)"}, f"{F} a call of nth() with a positive integer (1-based) as "
                     "argument 2; got 'two' in nth(x, two) for output 'n'.", id="nth not a number"),
        pytest.param({"n": ("nth", "x", -1)}, f"{F} a call of nth() with a positive integer (1-based) as "
                     "argument 2; got '-1' in ('nth', 'x', -1) for output 'n'.", id="nth negative tuple"),
        pytest.param({"m": "median(s)"}, f"{F} a call of median() on a numeric column; got 's' "
                     "(dtype object) in median(s) for output 'm'.", id="median of strings"),
        pytest.param({"v": "var(t)"}, f"{F} a call of var() on a numeric column; got 't' "
                     "(dtype datetime64[ns]) in var(t) for output 'v'.", id="var of timestamps"),
        pytest.param({"c": "corr(x, s)"}, f"{F} a call of corr() on numeric columns; got 's' "
                     "(dtype object) in corr(x, s) for output 'c'.", id="corr with a string column"),
        pytest.param({"c": "stddev(*)"}, f"{F} a call of stddev() on a column ('*' is only allowed in "
                     "count(*)); got 'stddev(*)' for output 'c'.", id="stddev star"),
    ],
)
def test_parse_errors(aggregates, message):
    dtypes = {"x": np.dtype("float64"), "y": np.dtype("int64"), "s": np.dtype("O"), "t": np.dtype("M8[ns]")}
    with pytest.raises(InvalidParameterError) as error:
        parse_aggregates(aggregates, dtypes, "f")
    assert str(error.value) == message


def test_rate_needs_a_window_kind_with_durations():
    with pytest.raises(InvalidParameterError) as error:
        parse_aggregates({"r": "rate(*)"}, ["x"], "f", model="m", context=())
    assert str(error.value) == (
        "model 'm': f(): `aggregates` must be an aggregate that f() can compute (rate() needs window "
        "durations, which this window kind does not have); got 'rate(*)' for output 'r'."
    )


# --------------------------------------------------------------------------------------
# Properties

SPECS = ["median(x)", "var(x)", "stddev(x)", "cov(x, y)", "corr(x, y)", "nth(x, 1)", "nth(y, 3)",
         "nest(x)", "distinctnest(y)", "completeness(x)", "rate(*)", "rate(y)"]
small = st.one_of(st.none(), st.integers(-5, 5))
# Six decimals: values like 3e-103 next to 0 have a variance below double precision's
# reach, where the exact-fraction reference and any float engine part ways.
wide = st.one_of(st.none(), st.floats(-1e6, 1e6, allow_nan=False).map(lambda v: round(v, 6)))


@st.composite
def columns_and_ranges(draw):
    n = draw(st.integers(0, 25))
    xs = draw(st.lists(st.one_of(small, wide), min_size=n, max_size=n))
    ys = draw(st.lists(small, min_size=n, max_size=n))
    x = np.array([np.nan if v is None else float(v) for v in xs])
    y = pd.array(ys, dtype="Int64")
    bounds = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, n)), min_size=1, max_size=15))
    lo = [min(a, b) for a, b in bounds]
    hi = [max(a, b) for a, b in bounds]
    durations = draw(st.lists(st.floats(0.5, 100), min_size=len(lo), max_size=len(lo)))
    return xs, ys, x, y, lo, hi, durations


@settings(max_examples=250, deadline=None)
@given(columns_and_ranges(), st.sampled_from(SPECS))
def test_ranges_match_the_reference(case, spec):
    xs, ys, x, y, lo, hi, durations = case
    result = compute(spec, {"x": x, "y": y}, lo, hi, durations=np.array(durations))
    rows = [{"x": a, "y": b} for a, b in zip(xs, ys, strict=True)]
    for got, a, b, duration in zip(result, lo, hi, durations, strict=True):
        want = reference_value(spec, rows[a:b], duration)
        assert same(got, want, rel=1e-7, abs_=1e-6), (spec, rows[a:b], got, want)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 4)), min_size=2, max_size=60),
    st.sampled_from([0.0, 1e6, 1e9, -1e9]),
    st.data(),
)
def test_variance_and_covariance_are_stable_with_large_offsets(noise, base, data):
    n = len(noise)
    x = base + np.array(noise)
    y = 2 * base - 3 * np.array(noise) + np.arange(n) * 0.01
    lo = np.array(data.draw(st.lists(st.integers(0, n - 2), min_size=1, max_size=8)))
    hi = np.minimum(lo + np.array(data.draw(st.lists(st.integers(2, n), min_size=len(lo), max_size=len(lo)))), n)
    columns = {"x": x, "y": y}
    for spec in ("var(x)", "cov(x, y)", "stddev(y)", "corr(x, y)"):
        result = compute(spec, columns, lo, hi)
        for got, a, b in zip(result, lo, hi, strict=True):
            xs, ys = x[a:b], y[a:b]
            with np.errstate(all="ignore"):
                if spec == "var(x)":
                    want = np.var(xs - xs.mean(), ddof=1)
                elif spec == "cov(x, y)":
                    want = np.cov(xs - xs.mean(), ys - ys.mean())[0, 1]
                elif spec == "stddev(y)":
                    want = np.std(ys - ys.mean(), ddof=1)
                else:
                    want = pd.Series(xs - xs.mean()).corr(pd.Series(ys - ys.mean()))
            # numpy on the already centred values is the accurate answer; the tolerance is
            # relative to the data's spread, far below what cancellation would cost at 1e9.
            if want is None or np.isnan(want):
                assert got is None
            else:
                assert got == pytest.approx(want, rel=1e-6, abs=1e-9 * max(1.0, abs(want)) + 1e-12)


def test_variance_of_values_around_1e9_is_exact_where_naive_sums_fail():
    x = 1e9 + np.array([4.0, 7.0, 13.0, 16.0])
    assert compute("var(x)", {"x": x}, [0], [4]) == [30.0]
    naive = (np.sum(x**2) - np.sum(x) ** 2 / 4) / 3
    assert naive != 30.0  # the formula a prefix-sum kernel would use


def test_long_ranges_use_several_lifting_levels():
    rng = np.random.default_rng(7)
    x = rng.normal(1e9, 5, 1000)
    lo = rng.integers(0, 500, 40)
    hi = lo + rng.integers(0, 500, 40)
    result = compute("var(x)", {"x": x}, lo, hi)
    for got, a, b in zip(result, lo, hi, strict=True):
        if b - a < 2:
            assert got is None
        else:
            assert got == pytest.approx(np.var(x[a:b] - 1e9, ddof=1), rel=1e-9)


# --------------------------------------------------------------------------------------
# Through a window kind: the field dimension passes its window durations to RATE


def test_field_dimension_rate_and_odysseus_functions():
    frame = pd.DataFrame({"time": [10, 20, 40, 41, 45, 50, 55, 65], "volume": [1, 2, 3, 4, 5, 6, 7, 8]})
    result = field_dimension_aggregate(
        frame, field="time", size=30, drain=True,
        aggregates={"rate": "rate(*)", "median": "median(volume)", "volumes": "nest(volume)",
                    "second": "nth(volume, 2)"},
    )
    assert result["rate"].tolist() == pytest.approx([2 / 30, 5 / 30, 1 / 30])
    assert result["median"].tolist() == [1.5, 5.0, 8.0]
    assert result["volumes"].tolist() == [[1, 2], [3, 4, 5, 6, 7], [8]]
    assert [None if is_null(v) else v for v in result["second"]] == [2, 4, None]


def test_field_dimension_rate_is_per_second_for_timestamps_and_null_without_size():
    frame = pd.DataFrame({"ts": pd.to_datetime([0, 10, 40], unit="s")})
    sized = field_dimension_aggregate(frame, field="ts", size=30, drain=True, aggregates={"r": "rate(*)"})
    assert sized["r"].tolist() == pytest.approx([2 / 30, 1 / 30])
    unsized = field_dimension_aggregate(frame, field="ts", drain=True, aggregates={"r": "rate(*)"})
    assert unsized["r"].isna().all()
