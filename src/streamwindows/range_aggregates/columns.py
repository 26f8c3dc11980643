"""Column preparation for the range kernels.

Any input column as a numpy array or a pandas ExtensionArray (:data:`ColumnData`), its
NULL mask (NaN in a float column is NULL), its values as int64 or float64 with the
NULLs filled, and the nullable types that results over it take.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray
from pandas.api.types import (
    is_bool_dtype,
    is_float_dtype,
    is_integer_dtype,
)

ColumnData = np.ndarray | ExtensionArray


def as_array(column: Any) -> ColumnData:
    if isinstance(column, (pd.Series, pd.Index)):
        column = column.array
    if isinstance(column, pd.arrays.NumpyExtensionArray):
        return np.asarray(column)  # to_numpy() would scan object columns for NULLs
    if isinstance(column, (np.ndarray, ExtensionArray)):
        return column
    return np.asarray(column)


def null_mask(array: ColumnData) -> np.ndarray | None:
    mask = np.asarray(pd.isna(array), dtype=bool)
    return mask if mask.any() else None


def is_intlike(dtype: Any) -> bool:
    return is_bool_dtype(dtype) or is_integer_dtype(dtype)


def numeric(array: ColumnData, fill: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(values as int64 or float64 with NULLs replaced by ``fill``, NULL mask or None).

    ``fill`` must be an int for integer and boolean columns.
    """
    nulls = null_mask(array)
    if is_intlike(array.dtype):
        if isinstance(array, np.ndarray):
            return array.astype(np.int64, copy=False), None
        return np.asarray(array.to_numpy(dtype=np.int64, na_value=int(fill))), nulls
    if isinstance(array, np.ndarray):
        values = array.astype(np.float64, copy=False)
        if nulls is not None:
            values = np.where(nulls, fill, values)
        return values, nulls
    return np.asarray(array.to_numpy(dtype=np.float64, na_value=fill)), nulls


def nullable(array: ColumnData) -> ColumnData:
    """The column in a type that can hold NULL (numpy ints/bools become masked arrays)."""
    if isinstance(array, np.ndarray):
        if array.dtype.kind == "b":
            return pd.arrays.BooleanArray(array, np.zeros(len(array), dtype=bool))
        if array.dtype.kind in "iu":
            values = array.astype(np.int64, copy=False)
            return pd.arrays.IntegerArray(values, np.zeros(len(array), dtype=bool))
        if array.dtype.kind == "f":
            return array.astype(np.float64, copy=False)
        return array
    if is_intlike(array.dtype) and not is_bool_dtype(array.dtype):
        return pd.array(array, dtype=pd.Int64Dtype())
    if is_bool_dtype(array.dtype):
        return pd.array(array, dtype=pd.BooleanDtype())
    if is_float_dtype(array.dtype):
        return np.asarray(array.to_numpy(dtype=np.float64, na_value=np.nan))
    return array


def nullable_dtype(dtype: Any) -> Any:
    """The result type of MIN/MAX/FIRST/LAST over a column of type ``dtype``."""
    if is_bool_dtype(dtype):
        return pd.BooleanDtype()
    if is_integer_dtype(dtype):
        return pd.Int64Dtype()
    if is_float_dtype(dtype):
        return np.dtype(np.float64)
    return dtype
