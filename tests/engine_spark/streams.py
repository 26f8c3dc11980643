"""The Spark layer tests' inputs: random and long event streams, as pandas frames the
tests turn into DataFrames."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import strategies as st

SCHEMA = "seq long, g string, t0 long, t1 long, v double"


@st.composite
def events(draw):
    """Per group: starts that never decrease in arrival order, lifetimes 1..6."""
    data, clocks = [], {}
    for seq in range(1, draw(st.integers(1, 30)) + 1):
        g = draw(st.sampled_from(["a", "b", "c", None]))
        clocks[g] = clocks.get(g, 0) + draw(st.sampled_from([0, 1, 2, 4]))
        data.append((seq, g, clocks[g], clocks[g] + draw(st.integers(1, 6)),
                     draw(st.one_of(st.none(), st.floats(-9, 9).map(lambda v: round(v, 3))))))
    return pd.DataFrame(data, columns=["seq", "g", "t0", "t1", "v"]).astype({"v": "float64"})


@st.composite
def ordered_events(draw):
    """One stream for every group: starts that never decrease in arrival order, whatever
    the group (steps of 0 for ties, gaps longer than any lifetime), lifetimes 1..6."""
    data, clock = [], draw(st.integers(-3, 3))
    for seq in range(1, draw(st.integers(1, 30)) + 1):
        clock += draw(st.sampled_from([0, 0, 1, 2, 4, 9]))
        data.append((seq, draw(st.sampled_from(["a", "b", "c", None])), clock, clock + draw(st.integers(1, 6)),
                     draw(st.one_of(st.none(), st.floats(-9, 9).map(lambda v: round(v, 3))))))
    return pd.DataFrame(data, columns=["seq", "g", "t0", "t1", "v"]).astype({"v": "float64"})


def long_stream(n=2000, groups=30, seed=3) -> pd.DataFrame:
    """Skewed groups, starts that jump by 0-3 (ties included), lifetimes 1-12 (many
    events valid at once), a gap of 100 in every group after row 1200, NULL keys."""
    rng = np.random.default_rng(seed)
    g = rng.choice([f"g{i}" for i in range(groups)], n, p=np.arange(groups, 0, -1) / sum(range(1, groups + 1)))
    t0 = np.cumsum(rng.integers(0, 4, n))
    t0[1200:] += 100
    frame = pd.DataFrame({"seq": np.arange(n) * 2 + 1, "g": g, "t0": t0, "t1": t0 + rng.integers(1, 13, n),
                          "v": rng.normal(50, 20, n).round(2)})
    frame.loc[frame.index % 11 == 0, "g"] = None
    return frame


def random_stream(n=3000, groups=40, seed=7):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "seq": np.arange(n) * 3 + 11,
        "t": np.cumsum(rng.integers(0, 4, n)),
        "g": rng.choice([f"s{i}" for i in range(groups)], n, p=np.arange(groups, 0, -1) / sum(range(1, groups + 1))),
        "v": rng.integers(0, 1000, n),
    })


def with_a_new_null(frame: pd.DataFrame, column: str, copied: int) -> pd.DataFrame:
    """``frame`` and after it a copy of row ``copied`` arriving last (seq 10**6) with a
    NULL ``column``."""
    batch = pd.concat([frame, frame.iloc[[copied]].assign(seq=10**6)], ignore_index=True)
    batch[column] = batch[column].astype(object)  # a NULL, not NaN, in a bigint column
    batch.loc[len(batch) - 1, column] = None
    return batch
