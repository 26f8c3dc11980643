"""How the steps carry columns between them, without copying.

A column is a numpy array or a pandas ExtensionArray (:data:`Columns` maps names to
them). Internally ``emit_kind`` travels as int8 codes (:data:`CLOSE`,
:data:`INTERMEDIATE`, :data:`DRAIN`: the phase order on one tuple) and
:data:`GROUP_NUMBER` may stand in for the group columns; :func:`to_frame` makes the
public frames, which name the kinds.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

EMIT_KINDS = ("close", "intermediate", "drain")  # also the phase order on one tuple
CLOSE, INTERMEDIATE, DRAIN = range(3)
GROUP_NUMBER = "__group_number__"  # internal stand-in for the group columns

Columns = dict[str, Any]  # column name -> numpy array or pandas ExtensionArray


def column_array(column: Any) -> Any:
    """A frame column as a numpy array or a pandas ExtensionArray (no copy)."""
    array = column.array if isinstance(column, (pd.Series, pd.Index)) else column
    if isinstance(array, pd.arrays.NumpyExtensionArray):
        return np.asarray(array)  # to_numpy() would scan object columns for NULLs
    return array


def take(array: Any, index: np.ndarray) -> Any:
    return array[index] if isinstance(array, np.ndarray) else array.take(index)


def values_and_valid(array: Any, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """(values as ``dtype`` with NULLs as 0, validity mask) of a nullable column."""
    array = column_array(array)
    if isinstance(array, np.ndarray):
        valid = ~np.isnan(array) if array.dtype.kind == "f" else np.ones(len(array), bool)
        values = array if valid.all() else np.where(valid, array, 0)
        return values.astype(dtype, copy=False), valid
    valid = ~np.asarray(array.isna(), dtype=bool)
    return np.asarray(array.to_numpy(dtype=dtype, na_value=0)), valid


def kind_codes(kinds: Any) -> np.ndarray:
    """emit_kind names -> int8 codes (internal columns carry the codes already)."""
    kinds = column_array(kinds)
    if isinstance(kinds, np.ndarray) and kinds.dtype.kind in "iu":
        return kinds.astype(np.int8, copy=False)
    return pd.Categorical(np.asarray(kinds, dtype=object), categories=EMIT_KINDS).codes


def kind_names(codes: np.ndarray) -> np.ndarray:
    return np.array(EMIT_KINDS, dtype=object)[codes]


def to_frame(columns: Columns, names: Sequence[str] | None = None) -> pd.DataFrame:
    """A frame of the columns without copying them (public frames name the kinds)."""
    columns = dict(columns)
    kinds = columns.get("emit_kind")
    if isinstance(kinds, np.ndarray) and kinds.dtype.kind in "iu":
        columns["emit_kind"] = kind_names(kinds)
    return pd.DataFrame(columns, columns=names, copy=False)


def nullable_coordinates(values: np.ndarray, valid: np.ndarray | None, exact: bool) -> Any:
    if valid is None or valid.all():
        return values
    if exact:
        return pd.arrays.IntegerArray(values.astype(np.int64), ~valid)
    return np.where(valid, values, np.nan)
