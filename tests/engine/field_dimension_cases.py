"""The field dimension's shared cases: the document's trades, the late-opened window of
docs/semantics.md, and random scenarios (a frame and the engine's options) with the
comparison of two emission frames. The pandas engine's tests and the Spark layer's use
them alike."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from hypothesis import strategies as st

from tests.engine.reference_field_dimension import rows


def trades():
    """The document's Aggregate Operator Field Dimension Sample input."""
    return pd.DataFrame(
        {
            "seq": range(1, 9),
            "time": [10, 20, 40, 41, 45, 50, 55, 65],
            "symbol": ["AMAT", "AMAT", "AMAT", "AMAT", "INTC", "AMAT", "INTC", "AMAT"],
            "volume": [100, 200, 100, 100, 100, 200, 300, 100],
        }
    )


def opened_late():
    """docs/semantics.md's late-opened window: size 20, advance 5, emit_every 4, one
    group, tuples 14 then 24."""
    return pd.DataFrame({"x": [14, 24], "volume": [100, 200]})


LATE = dict(field="x", size=20, advance=5, emit_every=4)


AGGREGATES = {
    "sum_x": "sum(x)",
    "count_all": "count(*)",
    "count_x": "count(x)",
    "avg_x": "avg(x)",
    "min_y": "min(y)",
    "max_x": "max(x)",
    "first_y": "first(y)",
    "last_x": "last(x)",
    "sum_y": "sum(y)",
}


@st.composite
def scenarios(draw):
    kind = draw(st.sampled_from(["int", "float"]))
    n = draw(st.integers(0, 24))
    if kind == "int":
        step = st.one_of(st.just(0), st.integers(0, 3), st.integers(4, 30))
        value = draw(st.integers(-25, 25))
    else:
        step = st.one_of(
            st.just(0.0), st.sampled_from([0.25, 0.5, 1.0, 2.5]), st.floats(0, 3),
            st.floats(3, 30),
        )
        value = draw(st.floats(-25, 25))
    values = []
    for _ in range(n):
        values.append(value)
        value = value + draw(step)
    n_groups = draw(st.integers(1, 6))
    frame = pd.DataFrame(
        {
            "t": np.array(values, dtype=np.int64 if kind == "int" else np.float64),
            "g": draw(st.lists(st.integers(0, n_groups - 1), min_size=n, max_size=n)),
            "h": draw(st.lists(st.sampled_from(["p", "q"]), min_size=n, max_size=n)),
            "x": pd.array(
                draw(st.lists(st.one_of(st.none(), st.integers(-50, 50)), min_size=n,
                              max_size=n)),
                dtype="Int64",
            ),
            "y": draw(st.lists(st.one_of(st.just(np.nan), st.floats(-100, 100)), min_size=n,
                               max_size=n)),
        }
    )
    frame["y"] = frame["y"].astype(np.float64)

    fractional = kind == "float" or draw(st.booleans())
    if fractional:
        length = st.one_of(st.integers(1, 12), st.floats(0.5, 12))
    else:
        length = st.integers(1, 12)
    size = draw(st.one_of(st.none(), length, length, length, length))
    opening = draw(st.sampled_from(["advance", "advance", "none"]))
    options = dict(field="t", size=size, opening=opening)
    if opening == "advance" and size is not None:
        divisor = draw(st.integers(1, 6))
        options["advance"] = draw(
            st.sampled_from([None, size / divisor, max(1, int(size) // divisor)])
        )
        if options["advance"] is not None and options["advance"] > size:
            options["advance"] = None
        offsets = st.integers(-10, 10)
        options["offset"] = draw(st.one_of(offsets, st.floats(-10, 10)) if fractional
                                 else offsets)
        options["optional_windows"] = draw(st.sampled_from(["single", "all"]))
    every = st.one_of(st.integers(1, 8), st.floats(0.5, 8)) if fractional else st.integers(
        1, 8
    )
    if size is None:
        every = every.map(lambda e: e * 10)  # points run to the end of input: keep few
    options["emit_every"] = draw(st.one_of(st.none(), every))
    options["drain"] = draw(st.booleans()) or (size is None and draw(st.booleans()))
    options["group_by"] = draw(st.sampled_from([[], ["g"], ["g", "h"]]))
    if draw(st.booleans()):
        frame["arrival"] = np.arange(n) * 3 + 7
        frame = frame.sample(frac=1, random_state=draw(st.integers(0, 10**6)))
        options["seq"] = "arrival"
    return frame, options


def assert_same_emissions(actual, expected, context=""):
    assert list(actual.columns) == list(expected.columns)
    detail = f"{context}\nengine:\n{actual.to_string()}\nreference:\n{expected.to_string()}"
    assert len(actual) == len(expected), detail
    for got_row, want_row in zip(rows(actual), rows(expected), strict=True):
        for column, got, want in zip(actual.columns, got_row, want_row, strict=True):
            if want is None or got is None:
                assert got is None and want is None, (column, got, want, detail)
            elif isinstance(got, float) or isinstance(want, float):
                assert math.isclose(got, want, rel_tol=1e-9, abs_tol=1e-9), (
                    column, got, want, detail
                )
            else:
                assert got == want, (column, got, want, detail)
