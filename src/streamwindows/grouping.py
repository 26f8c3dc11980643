"""What every engine needs of its input's columns and groups, whatever the window: the
kind of a time column, each row's group number (groups numbered by first arrival) and
the rows laid out group after group. The field dimension and the event engines (count
windows, interval aggregation) share these; none of them owns them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.api.types import is_bool_dtype, is_datetime64_any_dtype, is_float_dtype, is_integer_dtype

__all__ = ["group_codes", "stable_group_order", "time_kind"]


def time_kind(dtype: Any) -> str | None:
    """'int', 'float' or 'timestamp': the kinds a window's time (or field) can have;
    None for any other dtype (booleans included)."""
    if is_bool_dtype(dtype):
        return None
    if is_integer_dtype(dtype):
        return "int"
    if is_float_dtype(dtype):
        return "float"
    if is_datetime64_any_dtype(dtype):
        return "timestamp"
    return None


def group_codes(frame: pd.DataFrame, group_by: tuple[str, ...]) -> tuple[np.ndarray, int]:
    """Group number per row, numbered by first arrival (NULL keys are a group)."""
    n = len(frame)
    if not group_by or n == 0:
        return np.zeros(n, dtype=np.int64), (1 if n else 0)
    if len(group_by) == 1:
        codes, uniques = pd.factorize(frame[group_by[0]], use_na_sentinel=False)
        n_groups = len(uniques)
    else:
        grouped = frame.groupby(list(group_by), sort=False, dropna=False, observed=True)
        codes = grouped.ngroup().to_numpy()
        n_groups = int(codes.max()) + 1
    codes = codes.astype(np.int64)
    first = np.empty(n_groups, dtype=np.int64)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)  # the last write, the smallest row, wins
    renumber = np.empty(n_groups, dtype=np.int64)
    renumber[np.argsort(first, kind="stable")] = np.arange(n_groups)
    return renumber[codes], n_groups


def stable_group_order(codes: np.ndarray, n_groups: int) -> np.ndarray:
    """The rows sorted by group number, keeping their order within a group."""
    # numpy's stable sort is a radix sort for 16-bit keys: O(n) for up to 65536 groups.
    if n_groups <= np.iinfo(np.uint16).max + 1:
        return np.argsort(codes.astype(np.uint16), kind="stable")
    return np.argsort(codes, kind="stable")
